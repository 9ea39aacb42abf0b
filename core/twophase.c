/* twophase.c — Kociemba's two-phase algorithm for the 3×3 (solve.h).
 *
 * Phase 1 takes the cube into G1 = <U, D, R2, L2, F2, B2>: corners
 * untwisted, edges unflipped, the four E-slice edges (FR FL BL BR) in the
 * slice. Phase 2 solves it inside G1 with those ten moves. Each phase is an
 * IDA* search over coordinates — small integers standing for part of the
 * state, moved by table lookups — pruned by the distance of a projection
 * of the state, read from a table filled by breadth-first search:
 *
 *   phase 1  (flip·slice class, twist): 64,430 × 2,187 entries. The
 *            2,048 × 495 flip·slice values fall into 64,430 classes under
 *            the 16 symmetries that keep the UD axis (conjugation by a
 *            symmetry changes neither distances nor G1), so the table is
 *            16 times smaller than the raw product and still exact: it is
 *            the phase-1 distance itself, and phase 1 never enters a dead
 *            end.
 *   phase 2  (corner-permutation class, UD-edge permutation): 2,768 ×
 *            40,320 entries, the same idea; beside it (corner permutation,
 *            slice permutation), 40,320 × 24, one byte each, which also
 *            serves as a cheap first test of each phase-1 solution.
 *
 * The two big tables hold each distance mod 3 in 2 bits (35 + 28 MB). A
 * search knows its node's exact distance and a neighbour's differs by at
 * most one, so the residue tells which; a root's distance is found by
 * walking down the table to the goal. The phase-2 table stops at depth 11
 * (P2_DEEP): phase 2 rarely has more than ten moves to spend, so for most
 * phase-1 solutions one read says "too far" where a walk down would cost a
 * dozen cache misses, and its breadth-first fill is a quarter the work.
 *
 * Solving runs phase 1 for every length from the cube's phase-1 distance
 * up, phase 2 after every phase-1 solution (bounded by the best total so
 * far), and stops at target_length. It does so on six versions of the
 * cube at once — as it is, turned to put the R or F axis up (conjugated by
 * the 120° rotation about the URF–DBL diagonal), and the inverses of those
 * three — interleaved by phase-1 length: their phase-1 solutions differ,
 * so short totals turn up sooner (Chen Shuang's min2phase does the same;
 * here it makes the median solve 25 times faster). The search is bound by
 * memory latency, so a node fetches all its children's table entries
 * before it looks at any.
 *
 * Symmetries with a mirror turn corners the other way, so conjugation
 * uses twists 3..5 for mirrored corners, as Kociemba's cubie model does;
 * those cubies never leave this file. Nothing here allocates: tables are
 * the caller's buffer, a search lives on the stack.
 */
#include "solve.h"
#include "solve_internal.h"
#include "solve3.h"

#include <string.h>

enum {
	NTWIST = 2187,  /* 3^7 corner twists */
	NFLIP = 2048,   /* 2^11 edge flips */
	NSLICE = 495,   /* C(12,4) places of the slice edges */
	NFS = NSLICE * NFLIP,
	NCLS1 = 64430,  /* flip·slice classes */
	NPERM8 = 40320, /* 8! corner or UD-edge permutations */
	NSPERM = 24,    /* 4! slice-edge permutations */
	NCLS2 = 2768,   /* corner-permutation classes */
	NSYM = 16,      /* symmetries keeping the UD axis */
	NMOVE = 18,     /* face turns: face·3 + qt-1, faces U R F D L B */
	NMOVE2 = 10,    /* G1 turns */
	MAXLEN = 31,    /* longest solution searched for */
	MAXPRE = 2,     /* pre-moves (see twophase_solve) */
	MINP1PRE = 7,   /* the shortest phase 1 searched after pre-moves */
};

#define NP1 ((uint64_t)NCLS1 * NTWIST)  /* phase-1 pruning entries */
#define NP2 ((uint64_t)NCLS2 * NPERM8)  /* phase-2 pruning entries */

/* The phase-2 table keeps residues only up to depth P2_DEEP; deeper
 * entries read 3. A phase-2 search has a budget of at most about ten
 * moves once a first solution is known, so "deeper than P2_DEEP" is
 * usually all it needs: one read instead of a walk down the table. (10
 * and 12 were slower. Changing it changes the tables: bump VERSION.) */
#define P2_DEEP 11

/* Phase-2 table entries at depth <= d (the BFS must find exactly these). */
static const uint64_t p2_upto[19] = {
	1, 4, 14, 66, 351, 1669, 7340, 33842, 149309, 620155, 2473211,
	9009034, 27358826, 60202176, 94321059, 110295622, 111585968,
	111605745, 111605760};

/* G1's ten turns as face turns: U U2 U' D D2 D' R2 L2 F2 B2. */
static const uint8_t g1_moves[NMOVE2] = {0, 1, 2, 9, 10, 11, 4, 13, 7, 16};

/* ------------------------------------------------------------ the buffer */

/* One buffer: a header, then each table at a 64-byte boundary. */
#define AL(x) (((uint64_t)(x) + 63) & ~(uint64_t)63)
#define SZ_HEADER SOLVE__HEADER
#define SZ_TWIST_MOVE AL(NTWIST * NMOVE * 2)
#define SZ_FLIP_MOVE AL(NFLIP * NMOVE * 2)
#define SZ_SLICE_MOVE AL(NSLICE * NMOVE * 2)
#define SZ_TWIST_CONJ AL(NTWIST * NSYM * 2)
#define SZ_FS_SYM AL((uint64_t)NFS * 4)
#define SZ_FS_REP AL(NCLS1 * 4)
#define SZ_FS_STAB AL(NCLS1 * 2)
#define SZ_CPERM_MOVE AL(NPERM8 * NMOVE2 * 2)
#define SZ_UDE_MOVE AL(NPERM8 * NMOVE2 * 2)
#define SZ_SPERM_MOVE AL(NSPERM * NMOVE2)
#define SZ_UDE_CONJ AL((uint64_t)NPERM8 * NSYM * 2)
#define SZ_CP_SYM AL(NPERM8 * 2)
#define SZ_CP_REP AL(NCLS2 * 2)
#define SZ_CP_STAB AL(NCLS2 * 2)
#define SZ_CORNSLICE AL(NPERM8 * NSPERM)
#define SZ_URF_MOVE AL(3 * NMOVE)
#define SZ_PRUN1 AL((NP1 + 3) / 4)
#define SZ_PRUN2 AL((NP2 + 3) / 4)

#define OFF_TWIST_MOVE SZ_HEADER
#define OFF_FLIP_MOVE (OFF_TWIST_MOVE + SZ_TWIST_MOVE)
#define OFF_SLICE_MOVE (OFF_FLIP_MOVE + SZ_FLIP_MOVE)
#define OFF_TWIST_CONJ (OFF_SLICE_MOVE + SZ_SLICE_MOVE)
#define OFF_FS_SYM (OFF_TWIST_CONJ + SZ_TWIST_CONJ)
#define OFF_FS_REP (OFF_FS_SYM + SZ_FS_SYM)
#define OFF_FS_STAB (OFF_FS_REP + SZ_FS_REP)
#define OFF_CPERM_MOVE (OFF_FS_STAB + SZ_FS_STAB)
#define OFF_UDE_MOVE (OFF_CPERM_MOVE + SZ_CPERM_MOVE)
#define OFF_SPERM_MOVE (OFF_UDE_MOVE + SZ_UDE_MOVE)
#define OFF_UDE_CONJ (OFF_SPERM_MOVE + SZ_SPERM_MOVE)
#define OFF_CP_SYM (OFF_UDE_CONJ + SZ_UDE_CONJ)
#define OFF_CP_REP (OFF_CP_SYM + SZ_CP_SYM)
#define OFF_CP_STAB (OFF_CP_REP + SZ_CP_REP)
#define OFF_CORNSLICE (OFF_CP_STAB + SZ_CP_STAB)
#define OFF_URF_MOVE (OFF_CORNSLICE + SZ_CORNSLICE)
#define OFF_PRUN1 (OFF_URF_MOVE + SZ_URF_MOVE)
#define OFF_PRUN2 (OFF_PRUN1 + SZ_PRUN1)
#define SZ_TOTAL (OFF_PRUN2 + SZ_PRUN2)

/* The header's magic and format version (solve_internal.h): any change
 * to what the tables hold must bump VERSION, or old cache files would
 * still pass the check. */
static const char MAGIC[8] = "cubed2ph";
#define VERSION 1u

struct tables {
	uint16_t *twist_move;  /* [NTWIST][NMOVE] */
	uint16_t *flip_move;   /* [NFLIP][NMOVE] */
	uint16_t *slice_move;  /* [NSLICE][NMOVE] */
	uint16_t *twist_conj;  /* [NTWIST][NSYM]: twist of S X S⁻¹ */
	uint32_t *fs_sym;      /* [NFS]: class << 4 | the symmetry taking it
				* to its class representative */
	uint32_t *fs_rep;      /* [NCLS1]: representative flip·slice */
	uint16_t *fs_stab;     /* [NCLS1]: symmetries fixing the rep */
	uint16_t *cperm_move;  /* [NPERM8][NMOVE2] */
	uint16_t *ude_move;    /* [NPERM8][NMOVE2] */
	uint8_t *sperm_move;   /* [NSPERM][NMOVE2] */
	uint16_t *ude_conj;    /* [NPERM8][NSYM] */
	uint16_t *cp_sym;      /* [NPERM8]: class << 4 | symmetry */
	uint16_t *cp_rep;      /* [NCLS2] */
	uint16_t *cp_stab;     /* [NCLS2] */
	uint8_t *cornslice;    /* [NPERM8][NSPERM]: exact distance */
	uint8_t *urf_move;     /* [3][NMOVE]: S^-a m S^a as a face turn */
	uint8_t *prun1;        /* 2-bit distance mod 3, (class, twist) */
	uint8_t *prun2;        /* 2-bit distance mod 3, (class, UD edges) */
};

/* The search only reads through these pointers; init writes. */
static void bind(struct tables *t, unsigned char *b)
{
	t->twist_move = (uint16_t *)(void *)(b + OFF_TWIST_MOVE);
	t->flip_move = (uint16_t *)(void *)(b + OFF_FLIP_MOVE);
	t->slice_move = (uint16_t *)(void *)(b + OFF_SLICE_MOVE);
	t->twist_conj = (uint16_t *)(void *)(b + OFF_TWIST_CONJ);
	t->fs_sym = (uint32_t *)(void *)(b + OFF_FS_SYM);
	t->fs_rep = (uint32_t *)(void *)(b + OFF_FS_REP);
	t->fs_stab = (uint16_t *)(void *)(b + OFF_FS_STAB);
	t->cperm_move = (uint16_t *)(void *)(b + OFF_CPERM_MOVE);
	t->ude_move = (uint16_t *)(void *)(b + OFF_UDE_MOVE);
	t->sperm_move = b + OFF_SPERM_MOVE;
	t->ude_conj = (uint16_t *)(void *)(b + OFF_UDE_CONJ);
	t->cp_sym = (uint16_t *)(void *)(b + OFF_CP_SYM);
	t->cp_rep = (uint16_t *)(void *)(b + OFF_CP_REP);
	t->cp_stab = (uint16_t *)(void *)(b + OFF_CP_STAB);
	t->cornslice = b + OFF_CORNSLICE;
	t->urf_move = b + OFF_URF_MOVE;
	t->prun1 = b + OFF_PRUN1;
	t->prun2 = b + OFF_PRUN2;
}

static inline int get2(const uint8_t *p, uint64_t i)
{
	return p[i >> 2] >> ((i & 3) << 1) & 3;
}

static inline void set2(uint8_t *p, uint64_t i, int v)
{
	int sh = (int)(i & 3) << 1;
	p[i >> 2] = (uint8_t)((p[i >> 2] & ~(3 << sh)) | v << sh);
}

/* ------------------------------------------------------ cubie arithmetic */

/* The 16 UD-axis symmetries (solve3.h: s = 8·f2 + 2·u4 + lr2) and their
 * inverses. */
_Static_assert(NSYM == SOLVE3_UD_SYMS, "the UD-axis symmetries");
struct syms {
	cubie3 s[NSYM];
	uint8_t inv[NSYM];
};

static void make_syms(struct syms *y)
{
	solve3__ud_syms(y->s, y->inv);
}

/* S_s X S_s⁻¹ */
static void sym_conj(const struct syms *y, const cubie3 *x, int s, cubie3 *out)
{
	solve3__conj(y->s, y->inv, x, s, out);
}

/* ------------------------------------------------------------ coordinates */

static int binom(int n, int k)
{
	if (k < 0 || k > n)
		return 0;
	int r = 1;
	for (int i = 0; i < k; i++)
		r = r * (n - i) / (i + 1);
	return r;
}

static int get_twist(const cubie3 *c)
{
	int t = 0;
	for (int i = 0; i < 7; i++)
		t = 3 * t + c->co[i];
	return t;
}

static void set_twist(cubie3 *c, int t)
{
	int sum = 0;
	for (int i = 6; i >= 0; i--) {
		c->co[i] = (uint8_t)(t % 3);
		sum += t % 3;
		t /= 3;
	}
	c->co[7] = (uint8_t)((3 - sum % 3) % 3);
}

static int get_flip(const cubie3 *c)
{
	int f = 0;
	for (int i = 0; i < 11; i++)
		f = 2 * f + c->eo[i];
	return f;
}

static void set_flip(cubie3 *c, int f)
{
	int sum = 0;
	for (int i = 10; i >= 0; i--) {
		c->eo[i] = (uint8_t)(f & 1);
		sum += f & 1;
		f >>= 1;
	}
	c->eo[11] = (uint8_t)(sum & 1);
}

/* Where the slice edges (8..11) are, in the combinatorial number system:
 * position p holding one counts as a = 11 - p, and the four a's ranked
 * C(a0,1) + C(a1,2) + C(a2,3) + C(a3,4) with a0 < a1 < a2 < a3; solved
 * (a = 0,1,2,3) is 0. */
static int get_slice(const cubie3 *c)
{
	int r = 0, x = 0;
	for (int j = 11; j >= 0; j--)
		if (c->ep[j] >= 8) {
			r += binom(11 - j, x + 1);
			x++;
		}
	return r;
}

/* Slice edges 8..11 where slice r says (in position order), the others
 * 0..7 in the remaining positions. */
static void set_slice(cubie3 *c, int r)
{
	int in_slice[12] = {0};
	for (int x = 3; x >= 0; x--) {
		int a = x;
		while (binom(a + 1, x + 1) <= r)
			a++;
		r -= binom(a, x + 1);
		in_slice[11 - a] = 1;
	}
	int s = 8, o = 0;
	for (int p = 0; p < 12; p++)
		c->ep[p] = (uint8_t)(in_slice[p] ? s++ : o++);
}

/* Lehmer rank of a permutation of 0..n-1 (identity 0), and its inverse. */
static int perm_rank(const uint8_t *p, int n)
{
	int r = 0;
	for (int i = 0; i < n; i++) {
		int k = 0;
		for (int j = i + 1; j < n; j++)
			k += p[j] < p[i];
		r = r * (n - i) + k;
	}
	return r;
}

static void perm_unrank(int r, int n, uint8_t *p)
{
	int k[12];
	for (int i = n - 1; i >= 0; i--) {
		k[i] = r % (n - i);
		r /= n - i;
	}
	unsigned used = 0;
	for (int i = 0; i < n; i++)
		for (int v = 0, c = k[i]; v < n; v++)
			if (!(used >> v & 1) && c-- == 0) {
				p[i] = (uint8_t)v;
				used |= 1u << v;
				break;
			}
}

/* Phase-2 coordinates of a G1 cube. */
static int get_ude(const cubie3 *c) { return perm_rank(c->ep, 8); }
static int get_cperm(const cubie3 *c) { return perm_rank(c->cp, 8); }

static int get_sperm(const cubie3 *c)
{
	uint8_t p[4];
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(c->ep[8 + i] - 8);
	return perm_rank(p, 4);
}

/* ------------------------------------------------------------ table init */

struct progress {
	solve_poll_fn poll;
	void *ctx;
	uint64_t done, total;
};

static int report(struct progress *pr, uint64_t more)
{
	return pr->poll && pr->poll(pr->ctx, pr->done + more, pr->total);
}

static void face_turns(cubie3 mv[NMOVE])
{
	for (int m = 0; m < NMOVE; m++)
		cubie3_face_turn(m / 3, m % 3 + 1, &mv[m]);
}

static void init_moves(const struct tables *t, const cubie3 mv[NMOVE])
{
	cubie3 c, d;
	cubie3_solved(&c);
	for (int i = 0; i < NTWIST; i++) {
		set_twist(&c, i);
		for (int m = 0; m < NMOVE; m++) {
			cubie3_compose(&c, &mv[m], &d);
			t->twist_move[i * NMOVE + m] = (uint16_t)get_twist(&d);
		}
	}
	cubie3_solved(&c);
	for (int i = 0; i < NFLIP; i++) {
		set_flip(&c, i);
		for (int m = 0; m < NMOVE; m++) {
			cubie3_compose(&c, &mv[m], &d);
			t->flip_move[i * NMOVE + m] = (uint16_t)get_flip(&d);
		}
	}
	cubie3_solved(&c);
	for (int i = 0; i < NSLICE; i++) {
		set_slice(&c, i);
		for (int m = 0; m < NMOVE; m++) {
			cubie3_compose(&c, &mv[m], &d);
			t->slice_move[i * NMOVE + m] = (uint16_t)get_slice(&d);
		}
	}
	cubie3_solved(&c);
	for (int i = 0; i < NPERM8; i++) {
		perm_unrank(i, 8, c.cp);
		perm_unrank(i, 8, c.ep);
		for (int m = 0; m < NMOVE2; m++) {
			cubie3_compose(&c, &mv[g1_moves[m]], &d);
			t->cperm_move[i * NMOVE2 + m] = (uint16_t)get_cperm(&d);
			t->ude_move[i * NMOVE2 + m] = (uint16_t)get_ude(&d);
		}
	}
	cubie3_solved(&c);
	for (int i = 0; i < NSPERM; i++) {
		uint8_t p[4];
		perm_unrank(i, 4, p);
		for (int k = 0; k < 4; k++)
			c.ep[8 + k] = (uint8_t)(8 + p[k]);
		for (int m = 0; m < NMOVE2; m++) {
			cubie3_compose(&c, &mv[g1_moves[m]], &d);
			t->sperm_move[i * NMOVE2 + m] = (uint8_t)get_sperm(&d);
		}
	}
}

static void init_conj(const struct tables *t, const struct syms *y)
{
	cubie3 c, d;
	cubie3_solved(&c);
	for (int i = 0; i < NTWIST; i++) {
		set_twist(&c, i);
		for (int s = 0; s < NSYM; s++) {
			sym_conj(y, &c, s, &d);
			t->twist_conj[i * NSYM + s] = (uint16_t)get_twist(&d);
		}
	}
	cubie3_solved(&c);
	for (int i = 0; i < NPERM8; i++) {
		perm_unrank(i, 8, c.ep);
		for (int s = 0; s < NSYM; s++) {
			sym_conj(y, &c, s, &d);
			t->ude_conj[i * NSYM + s] = (uint16_t)get_ude(&d);
		}
	}
}

/* Classes of flip·slice and of corner permutations: the first raw value
 * met in increasing order represents its class; every conjugate of it
 * records the class and the symmetry that leads back to it. Returns the
 * class counts' agreement with the known ones (0) or -1. */
static int init_classes(const struct tables *t, const struct syms *y)
{
	cubie3 c, d;
	uint32_t ncls = 0;
	memset(t->fs_sym, 0xff, (size_t)NFS * 4);
	cubie3_solved(&c);
	for (uint32_t fs = 0; fs < NFS; fs++) {
		if (t->fs_sym[fs] != 0xffffffffu)
			continue;
		if (ncls == NCLS1)
			return -1;
		set_slice(&c, (int)(fs / NFLIP));
		set_flip(&c, (int)(fs % NFLIP));
		uint16_t stab = 0;
		for (int s = 0; s < NSYM; s++) {
			sym_conj(y, &c, s, &d);
			uint32_t x = (uint32_t)get_slice(&d) * NFLIP +
				     (uint32_t)get_flip(&d);
			if (x == fs)
				stab |= (uint16_t)(1u << s);
			if (t->fs_sym[x] == 0xffffffffu)
				t->fs_sym[x] = ncls << 4 | y->inv[s];
		}
		t->fs_rep[ncls] = fs;
		t->fs_stab[ncls++] = stab;
	}
	if (ncls != NCLS1)
		return -1;

	ncls = 0;
	memset(t->cp_sym, 0xff, NPERM8 * 2);
	cubie3_solved(&c);
	for (uint32_t cp = 0; cp < NPERM8; cp++) {
		if (t->cp_sym[cp] != 0xffff)
			continue;
		if (ncls == NCLS2)
			return -1;
		perm_unrank((int)cp, 8, c.cp);
		uint16_t stab = 0;
		for (int s = 0; s < NSYM; s++) {
			sym_conj(y, &c, s, &d);
			uint32_t x = (uint32_t)get_cperm(&d);
			if (x == cp)
				stab |= (uint16_t)(1u << s);
			if (t->cp_sym[x] == 0xffff)
				t->cp_sym[x] = (uint16_t)(ncls << 4 | y->inv[s]);
		}
		t->cp_rep[ncls] = (uint16_t)cp;
		t->cp_stab[ncls++] = stab;
	}
	return ncls == NCLS2 ? 0 : -1;
}

/* The face turn S^-a m S^a for each m, a = 0..2 (S the URF rotation): a
 * solution found for S^a X S^-a, turned back into one for X. */
static int init_urf_moves(const struct tables *t, const cubie3 mv[NMOVE])
{
	cubie3 s[3], si[3], x;
	cubie3_solved(&s[0]);
	solve3__mul(&s[0], &solve3__s_urf3, &s[1]);
	solve3__mul(&s[1], &solve3__s_urf3, &s[2]);
	for (int a = 0; a < 3; a++)
		cubie3_invert(&s[a], &si[a]);
	for (int a = 0; a < 3; a++)
		for (int m = 0; m < NMOVE; m++) {
			solve3__mul(&si[a], &mv[m], &x);
			solve3__mul(&x, &s[a], &x);
			int found = -1;
			for (int k = 0; k < NMOVE; k++)
				if (cubie3_equal(&x, &mv[k]))
					found = k;
			if (found < 0)
				return -1;
			t->urf_move[a * NMOVE + m] = (uint8_t)found;
		}
	return 0;
}

/* (corner permutation, slice permutation): one byte of exact distance
 * each, breadth first from solved. */
static void init_cornslice(const struct tables *t)
{
	uint8_t *p = t->cornslice;
	memset(p, 0xff, NPERM8 * NSPERM);
	p[0] = 0;
	for (int d = 0, found = 1; found; d++) {
		found = 0;
		for (uint32_t i = 0; i < NPERM8 * NSPERM; i++) {
			if (p[i] != d)
				continue;
			uint32_t cp = i / NSPERM, sp = i % NSPERM;
			for (int m = 0; m < NMOVE2; m++) {
				uint32_t j = (uint32_t)t->cperm_move[cp * NMOVE2 + m] *
						     NSPERM +
					     t->sperm_move[sp * NMOVE2 + m];
				if (p[j] == 0xff) {
					p[j] = (uint8_t)(d + 1);
					found = 1;
				}
			}
		}
	}
}

/* A pruning table over (symmetry class, raw coordinate): how classes move
 * (class_moves fills class << 4 | symmetry for each move of class c's
 * representative) and how the raw coordinate moves and conjugates. */
struct symprun {
	uint8_t *table;
	uint32_t nclass, nraw;
	int nmove;
	const uint16_t *raw_move; /* [nraw][nmove] */
	const uint16_t *raw_conj; /* [nraw][NSYM] */
	const uint16_t *stab;     /* [nclass] */
	void (*class_moves)(const struct tables *t, uint32_t c, uint32_t *out);
	uint32_t poll_every;      /* classes between polls */
	int maxdepth;             /* deeper entries stay 3 */
	uint64_t count;           /* entries within maxdepth */
};

static void fs_class_moves(const struct tables *t, uint32_t c, uint32_t *out)
{
	uint32_t fs = t->fs_rep[c], sl = fs / NFLIP, fl = fs % NFLIP;
	for (int m = 0; m < NMOVE; m++)
		out[m] = t->fs_sym[(uint32_t)t->slice_move[sl * NMOVE + m] * NFLIP +
				   t->flip_move[fl * NMOVE + m]];
}

static void cp_class_moves(const struct tables *t, uint32_t c, uint32_t *out)
{
	uint32_t cp = t->cp_rep[c];
	for (int m = 0; m < NMOVE2; m++)
		out[m] = t->cp_sym[t->cperm_move[cp * NMOVE2 + m]];
}

/* The entries of value v in [lo, hi) (at most CHUNK of them), as offsets
 * from lo. Whole 64-bit words of 32 entries are tested at once, since the
 * passes of a breadth-first search mostly look for rare values. */
#define CHUNK 4096
static uint32_t gather(const uint8_t *tab, uint64_t lo, uint64_t hi, int v,
		       uint16_t *out)
{
	const uint64_t ones = 0x5555555555555555u;
	uint32_t n = 0;
	uint64_t i = lo;
	for (; i < hi && (i & 31); i++)
		if (get2(tab, i) == v)
			out[n++] = (uint16_t)(i - lo);
	for (; i + 32 <= hi; i += 32) {
		uint64_t w;
		memcpy(&w, tab + i / 4, 8);
		w ^= ones * (uint64_t)v; /* matching fields are now 00 */
		for (uint64_t m = ~(w | w >> 1) & ones; m; m &= m - 1)
			out[n++] = (uint16_t)(i - lo + (uint64_t)__builtin_ctzll(m) / 2);
	}
	for (; i < hi; i++)
		if (get2(tab, i) == v)
			out[n++] = (uint16_t)(i - lo);
	return n;
}

/* One chunk of a backward pass: which of the n unreached entries
 * base + r0 + list[j] have a neighbour at the last depth (residue dv)?
 * Those get nv; returns how many. Move by move, over the shrinking list. */
static uint64_t backward_step(const struct symprun *p, uint8_t *tab,
			      const uint32_t *cm, uint64_t base, uint32_t r0,
			      uint16_t *list, uint16_t *keep, uint32_t n,
			      int dv, int nv)
{
	uint32_t n0 = n;
	for (int m = 0; m < p->nmove && n; m++) {
		uint64_t b2 = (uint64_t)(cm[m] >> 4) * p->nraw;
		const uint16_t *conj = p->raw_conj + (cm[m] & 15);
		uint32_t k = 0;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t r = r0 + list[j];
			uint32_t r1 = p->raw_move[(size_t)r * p->nmove + m];
			uint32_t r2 = conj[r1 * NSYM];
			int hit = get2(tab, b2 + r2) == dv;
			keep[k] = list[j];
			k += !hit;
			if (hit)
				set2(tab, base + r, nv);
		}
		memcpy(list, keep, k * sizeof list[0]);
		n = k;
	}
	return n0 - n;
}

/* One chunk of a forward pass: the unreached neighbours of the entries
 * r0 + list[j] of the class whose moves are cm, and their symmetric
 * twins, get nv; returns how many. */
static uint64_t forward_step(const struct symprun *p, uint8_t *tab,
			     const uint32_t *cm, uint32_t r0,
			     const uint16_t *list, uint32_t n, int nv)
{
	uint64_t found = 0;
	for (uint32_t j = 0; j < n; j++) {
		const uint16_t *rm = p->raw_move + (size_t)(r0 + list[j]) * p->nmove;
		for (int m = 0; m < p->nmove; m++) {
			uint32_t c2 = cm[m] >> 4;
			uint32_t r2 = p->raw_conj[rm[m] * NSYM + (cm[m] & 15)];
			uint64_t b2 = (uint64_t)c2 * p->nraw;
			if (get2(tab, b2 + r2) != 3)
				continue;
			set2(tab, b2 + r2, nv);
			found++;
			for (unsigned st = p->stab[c2] & ~1u; st; st &= st - 1) {
				int sy = __builtin_ctz(st);
				uint64_t i = b2 + p->raw_conj[r2 * NSYM + sy];
				if (get2(tab, i) == 3) {
					set2(tab, i, nv);
					found++;
				}
			}
		}
	}
	return found;
}

/* Breadth first from solved, distances mod 3 (3 = not reached yet). Early
 * depths go forward from the last layer, setting every symmetric twin of
 * a new entry (a representative fixed by a symmetry has twins in its own
 * class block); late depths, when fewer entries are unreached than the
 * layer would expand, go backward: each unreached entry looks for a
 * neighbour in the last layer (its twins find one too). Work goes class
 * by class, so a class's neighbours (one small block per move) stay in
 * cache, and the backward test runs move by move over a list of entries
 * rather than entry by entry, so its table reads do not wait on each
 * other. */
static int fill_symprun(const struct tables *t, const struct symprun *p,
			struct progress *pr)
{
	uint64_t total = (uint64_t)p->nclass * p->nraw, done = 1, layer = 1;
	uint8_t *tab = p->table;
	uint16_t list[CHUNK], keep[CHUNK];
	memset(tab, 0xff, (size_t)((total + 3) / 4));
	set2(tab, 0, 0);
	for (int d = 0; d < p->maxdepth; d++) {
		int dv = d % 3, nv = (d + 1) % 3;
		int backward = total - done < 3 * layer;
		uint64_t found = 0;
		for (uint32_t c = 0; c < p->nclass; c++) {
			uint32_t cm[NMOVE];
			int have_cm = 0;
			uint64_t base = (uint64_t)c * p->nraw;
			for (uint32_t r0 = 0; r0 < p->nraw; r0 += CHUNK) {
				uint32_t r1 = p->nraw - r0 < CHUNK ? p->nraw : r0 + CHUNK;
				uint32_t n = gather(tab, base + r0, base + r1,
						    backward ? 3 : dv, list);
				if (n == 0)
					continue;
				if (!have_cm) {
					p->class_moves(t, c, cm);
					have_cm = 1;
				}
				found += backward
					? backward_step(p, tab, cm, base, r0,
							list, keep, n, dv, nv)
					: forward_step(p, tab, cm, r0, list, n,
						       nv);
			}
			if (c % p->poll_every == p->poll_every - 1 &&
			    report(pr, done + found))
				return SOLVE_ECANCELLED;
		}
		if (!found)
			break;
		done += found;
		layer = found;
	}
	pr->done += p->count;
	return done == p->count ? CUBE_OK : SOLVE_ETABLES;
}

size_t twophase_table_size(void)
{
	return (size_t)SZ_TOTAL;
}

int twophase_table_init(void *buf, size_t size, solve_poll_fn poll, void *ctx)
{
	if (!buf || size != SZ_TOTAL)
		return CUBE_EINVAL;
	unsigned char *b = buf;
	struct tables t;
	struct syms y;
	cubie3 mv[NMOVE];
	struct progress pr = {poll, ctx, 0, NP1 + p2_upto[P2_DEEP]};
	/* padding too, so that the bytes are the same on every run */
	if (report(&pr, 0))
		return SOLVE_ECANCELLED;
	memset(b, 0, (size_t)SZ_TOTAL);
	bind(&t, b);
	make_syms(&y);
	face_turns(mv);
	init_moves(&t, mv);
	init_conj(&t, &y);
	if (report(&pr, 0))
		return SOLVE_ECANCELLED;
	if (init_classes(&t, &y) < 0 || init_urf_moves(&t, mv) < 0)
		return SOLVE_ETABLES; /* a bug, not bad input */
	init_cornslice(&t);
	if (report(&pr, 0))
		return SOLVE_ECANCELLED;
	struct symprun p1 = {t.prun1, NCLS1, NTWIST, NMOVE, t.twist_move,
			     t.twist_conj, t.fs_stab, fs_class_moves, 256,
			     99, NP1};
	struct symprun p2 = {t.prun2, NCLS2, NPERM8, NMOVE2, t.ude_move,
			     t.ude_conj, t.cp_stab, cp_class_moves, 16,
			     P2_DEEP, p2_upto[P2_DEEP]};
	int rc = fill_symprun(&t, &p1, &pr);
	if (rc == CUBE_OK)
		rc = fill_symprun(&t, &p2, &pr);
	if (rc != CUBE_OK)
		return rc;
	solve__seal(b, SZ_TOTAL, MAGIC, VERSION);
	report(&pr, 0);
	return CUBE_OK;
}

static int header_ok(const void *b)
{
	return solve__header_ok(b, SZ_TOTAL, MAGIC, VERSION);
}

int twophase_table_check(const void *buf, size_t size)
{
	return solve__check(buf, size, SZ_TOTAL, MAGIC, VERSION);
}

/* ----------------------------------------------------------------- search */

/* A child's distance from its parent's (d) and its residue (v): d-1, d
 * or d+1 (index d % 3, v). */
static const int8_t step[3][4] = {{0, 1, -1, 99}, {-1, 0, 1, 99},
				  {1, -1, 0, 99}};

/* Phase-1 and phase-2 table positions of coordinates. */
static inline uint32_t p1_index(const struct tables *t, int tw, int fl, int sl)
{
	uint32_t k = t->fs_sym[(uint32_t)sl * NFLIP + (uint32_t)fl];
	return (k >> 4) * NTWIST + t->twist_conj[tw * NSYM + (k & 15)];
}

static inline uint32_t p2_index(const struct tables *t, int cp, int ue)
{
	uint32_t k = t->cp_sym[cp];
	return (k >> 4) * NPERM8 + t->ude_conj[ue * NSYM + (k & 15)];
}

/* Whether face f may follow face last (-1 = none): never the same face
 * twice, and of two opposite faces only the positive one (U R F) first,
 * since they commute. */
static inline int follows(int f, int last)
{
	return f != last && f != last - 3;
}

/* One search: the six versions of the cube, the path being explored and
 * the best solution so far (already turned back into moves of the
 * original cube). */
struct search {
	struct tables t;
	cubie3 mv[NMOVE];
	cubie3 cube[6];      /* per direction */
	int h1[6];           /* per direction: phase-1 distance, -1 = skip */
	int dir, n1;         /* current direction, phase-1 length */
	uint8_t pre[MAXPRE]; /* pre-moves: pre[0] next to the cube */
	int npre;
	cubie3 cub[MAXLEN + 1]; /* cub[k]: direction cube after k moves */
	int valid;              /* cub[0..valid] are up to date */
	uint8_t path[MAXLEN];
	uint8_t best[MAXLEN];
	int best_len;        /* length of best; limit + 1 while none */
	int target;
	uint64_t nodes, next_poll, max_nodes;
	uint64_t *walk_cost;    /* &nodes when walk steps count (a label), or
				 * NULL */
	int max_pre;            /* pre-moves tried: MAXPRE, 1 for a label */
	solve_poll_fn poll;
	void *ctx;
	int stop;
};

#define POLL_NODES 4096

static inline int tick(struct search *s)
{
	if (++s->nodes >= s->next_poll) {
		if (s->nodes >= s->max_nodes)
			s->stop = 1;
		s->next_poll = s->nodes + POLL_NODES;
		if (s->next_poll > s->max_nodes)
			s->next_poll = s->max_nodes;
		if (s->poll && s->poll(s->ctx, 0, 0))
			s->stop = 1;
	}
	return s->stop;
}

/* Record path[0..n) of the current direction as the best solution. */
static void record(struct search *s, int n)
{
	int a = s->dir % 3, inv = s->dir >= 3;
	const uint8_t *um = s->t.urf_move + a * NMOVE;
	/* the direction cube's solution: path, then the pre-moves, last
	 * first, a move on the face of the one before it merged into it */
	uint8_t seq[MAXLEN + MAXPRE];
	int k = 0;
	for (int i = 0; i < n; i++)
		seq[k++] = s->path[i];
	for (int i = s->npre - 1; i >= 0; i--) {
		int m = s->pre[i];
		if (k > 0 && seq[k - 1] / 3 == m / 3) {
			int q = (seq[k - 1] % 3 + m % 3 + 2) % 4; /* quarter turns */
			if (q == 0)
				k--;
			else
				seq[k - 1] = (uint8_t)(m / 3 * 3 + q - 1);
			continue;
		}
		seq[k++] = (uint8_t)m;
	}
	for (int i = 0; i < k; i++) {
		int m = um[seq[i]];
		if (inv) /* the inverse's solution, reversed and inverted */
			s->best[k - 1 - i] = (uint8_t)(m / 3 * 3 + 2 - m % 3);
		else
			s->best[i] = (uint8_t)m;
	}
	s->best_len = k;
	if (k <= s->target)
		s->stop = 1;
}

/* Exact distance of (cp, ue) in the phase-2 table, or cap+1 if above cap:
 * step down to a neighbour one closer until the goal. All ten neighbours
 * are fetched before any is looked at, so their cache misses overlap. The
 * walk stops as soon as the distance left, at least its residue's least
 * value (3 for residue 0 short of the goal), takes it past cap. Each step
 * adds one to *cost when cost is not NULL. */
static int p2_depth(const struct tables *t, int cp, int ue, int cap,
		    uint64_t *cost)
{
	uint32_t i = p2_index(t, cp, ue);
	int v = get2(t->prun2, i), d = 0;
	while (i != 0) {
		if (d + (v ? v : 3) > cap)
			return cap + 1;
		if (cost)
			++*cost;
		int want = (v + 2) % 3, m;
		uint32_t j[NMOVE2];
		for (m = 0; m < NMOVE2; m++) {
			j[m] = p2_index(t, t->cperm_move[cp * NMOVE2 + m],
					t->ude_move[ue * NMOVE2 + m]);
			__builtin_prefetch(t->prun2 + j[m] / 4);
		}
		for (m = 0; m < NMOVE2; m++)
			if (get2(t->prun2, j[m]) == want)
				break;
		if (m == NMOVE2)
			return cap + 1; /* a broken table: no solution here */
		cp = t->cperm_move[cp * NMOVE2 + m];
		ue = t->ude_move[ue * NMOVE2 + m];
		i = j[m];
		v = want;
		d++;
	}
	return d;
}

/* A phase-2 child's distance from its parent's (d) and its entry (v):
 * P2_DEEP + 1 stands for anything deeper than P2_DEEP, a lower bound; a
 * child leaving that zone is at P2_DEEP exactly. */
static inline int p2_step(int d, int v)
{
	if (v == 3)
		return P2_DEEP + 1;
	if (d > P2_DEEP)
		return P2_DEEP;
	return d + step[d % 3][v];
}

static int phase2(struct search *s, int cp, int ue, int sp, int d2, int k,
		  int togo, int last)
{
	if (togo == 0)
		return cp == 0 && ue == 0 && sp == 0;
	if (tick(s))
		return 0;
	const struct tables *t = &s->t;
	for (int m = 0; m < NMOVE2; m++) {
		int mm = g1_moves[m];
		if (!follows(mm / 3, last))
			continue;
		int cp2 = t->cperm_move[cp * NMOVE2 + m];
		int sp2 = t->sperm_move[sp * NMOVE2 + m];
		if (t->cornslice[cp2 * NSPERM + sp2] >= togo)
			continue;
		int ue2 = t->ude_move[ue * NMOVE2 + m];
		int dd = p2_step(d2, get2(t->prun2, p2_index(t, cp2, ue2)));
		if (dd >= togo)
			continue;
		s->path[k] = (uint8_t)mm;
		if (phase2(s, cp2, ue2, sp2, dd, k + 1, togo - 1, mm / 3))
			return 1;
		if (s->stop)
			return 0;
	}
	return 0;
}

/* A phase-1 solution of length n is in path: finish it if phase 2 can do
 * better than the best so far. */
static void phase2_start(struct search *s, int n)
{
	int budget = s->best_len - 1 - n - s->npre;
	if (budget < 0)
		return;
	for (int j = s->valid; j < n; j++)
		cubie3_compose(&s->cub[j], &s->mv[s->path[j]], &s->cub[j + 1]);
	s->valid = n;
	const cubie3 *c = &s->cub[n];
	const struct tables *t = &s->t;
	int cp = get_cperm(c), sp = get_sperm(c);
	int lb = t->cornslice[cp * NSPERM + sp];
	if (lb > budget)
		return;
	int ue = get_ude(c);
	int d2 = P2_DEEP + 1;
	if (get2(t->prun2, p2_index(t, cp, ue)) != 3)
		d2 = p2_depth(t, cp, ue, budget, s->walk_cost);
	if (d2 > budget)
		return;
	if (d2 > lb)
		lb = d2;
	int last = n ? s->path[n - 1] / 3 : -1;
	for (int len = lb; len <= budget; len++) {
		if (phase2(s, cp, ue, sp, d2, n, len, last)) {
			record(s, n + len);
			return;
		}
		if (s->stop)
			return;
	}
}

static void phase1(struct search *s, int tw, int fl, int sl, int d, int k,
		   int togo)
{
	if (togo == 0) {
		/* a last move inside G1 would make this a longer copy of a
		 * shorter phase-1 solution: only quarter turns of R L F B */
		int m = k ? s->path[k - 1] : -1;
		if (k == 0 || (m % 3 != 1 && m / 3 % 3 != 0))
			phase2_start(s, k);
		return;
	}
	if (tick(s))
		return;
	const struct tables *t = &s->t;
	int last = k ? s->path[k - 1] / 3 : -1;
	if (togo == 1) {
		/* the last move: it must land in G1 itself, which the
		 * coordinates say without reading any table */
		for (int m = 0; m < NMOVE; m++) {
			if (m % 3 == 1 || m / 3 % 3 == 0 || !follows(m / 3, last))
				continue;
			if (t->twist_move[tw * NMOVE + m] == 0 &&
			    t->flip_move[fl * NMOVE + m] == 0 &&
			    t->slice_move[sl * NMOVE + m] == 0) {
				s->path[k] = (uint8_t)m;
				if (s->valid > k)
					s->valid = k;
				phase2_start(s, k + 1);
				if (s->stop || s->n1 + s->npre >= s->best_len)
					return;
			}
		}
		return;
	}
	/* children in three sweeps — coordinates, then their class, then
	 * their table entry — each prefetching what the next one reads, so
	 * the misses of all the children overlap instead of queueing; only
	 * the moves that may follow the last one (12 or 15 of 18) are read */
	uint16_t tw2[NMOVE], fl2[NMOVE], sl2[NMOVE];
	uint32_t ix[NMOVE];
	uint8_t mvs[NMOVE];
	int nm = 0;
	for (int m = 0; m < NMOVE; m++)
		if (follows(m / 3, last))
			mvs[nm++] = (uint8_t)m;
	for (int i = 0; i < nm; i++) {
		int m = mvs[i];
		tw2[m] = t->twist_move[tw * NMOVE + m];
		fl2[m] = t->flip_move[fl * NMOVE + m];
		sl2[m] = t->slice_move[sl * NMOVE + m];
		__builtin_prefetch(t->fs_sym + (uint32_t)sl2[m] * NFLIP + fl2[m]);
	}
	for (int i = 0; i < nm; i++) {
		int m = mvs[i];
		ix[m] = p1_index(t, tw2[m], fl2[m], sl2[m]);
		__builtin_prefetch(t->prun1 + ix[m] / 4);
	}
	for (int i = 0; i < nm; i++) {
		int m = mvs[i];
		int dd = d + step[d % 3][get2(t->prun1, ix[m])];
		if (dd > togo - 1)
			continue;
		s->path[k] = (uint8_t)m;
		if (s->valid > k)
			s->valid = k;
		phase1(s, tw2[m], fl2[m], sl2[m], dd, k + 1, togo - 1);
		if (s->stop || s->n1 + s->npre >= s->best_len)
			return;
	}
}

/* A walk down the phase-1 table from a cube to G1, which finds the cube's
 * exact phase-1 distance. Walks are much of a search's cost, and most of
 * them are for starting points that only matter if their distance is at
 * most some length L. A walk therefore goes only as far as it must to
 * tell that, and stays where it stopped for a later, larger L: the
 * distance left is one of the values its residue allows (at least 3 for
 * residue 0 short of the goal), so once the steps taken plus the least
 * of those exceed L, so does the distance. The steps it still takes are
 * the deep ones, whose entries are rarely in cache, and from a deep cube
 * only about one child in 18 is closer: a step fetches all its children's
 * entries before it looks at any, as phase1 does, so that their misses
 * overlap (reading them one by one until a closer one turns up was 10 %
 * slower). */
struct walk {
	uint32_t i;     /* table position of where the walk is */
	uint16_t tw, fl, sl;
	int8_t v;       /* the residue there */
	int8_t last;    /* the face of the last step, -1 before the first */
	int8_t steps;   /* taken so far */
	int8_t h1;      /* the distance once the walk is at G1, else -1;
			 * 99 for a walk that found no closer child (broken
			 * tables) */
};

static void walk_start(const struct tables *t, struct walk *w,
		       const cubie3 *c)
{
	w->tw = (uint16_t)get_twist(c);
	w->fl = (uint16_t)get_flip(c);
	w->sl = (uint16_t)get_slice(c);
	w->i = p1_index(t, w->tw, w->fl, w->sl);
	w->v = (int8_t)get2(t->prun1, w->i);
	w->steps = 0;
	w->last = -1;
	w->h1 = -1;
}

/* The walk's phase-1 distance if it is at most L, else -1. Each step
 * adds one to *cost when cost is not NULL. */
static int walk_depth(const struct tables *t, struct walk *w, int L,
		      uint64_t *cost)
{
	while (w->h1 < 0) {
		if (w->i == 0) {
			w->h1 = w->steps;
			break;
		}
		if (w->steps + (w->v ? w->v : 3) > L)
			return -1;
		if (cost)
			++*cost;
		/* a turn of the last step's face leads back or to a
		 * neighbour of the cube before it: never closer */
		int want = (w->v + 2) % 3, m;
		uint16_t tw2[NMOVE], fl2[NMOVE], sl2[NMOVE];
		uint32_t ix[NMOVE];
		for (m = 0; m < NMOVE; m++) {
			if (m / 3 == w->last)
				continue;
			tw2[m] = t->twist_move[w->tw * NMOVE + m];
			fl2[m] = t->flip_move[w->fl * NMOVE + m];
			sl2[m] = t->slice_move[w->sl * NMOVE + m];
			__builtin_prefetch(t->fs_sym +
					   (uint32_t)sl2[m] * NFLIP + fl2[m]);
		}
		for (m = 0; m < NMOVE; m++) {
			if (m / 3 == w->last)
				continue;
			ix[m] = p1_index(t, tw2[m], fl2[m], sl2[m]);
			__builtin_prefetch(t->prun1 + ix[m] / 4);
		}
		for (m = 0; m < NMOVE; m++) {
			if (m / 3 == w->last)
				continue;
			if (get2(t->prun1, ix[m]) == want) {
				w->tw = tw2[m], w->fl = fl2[m];
				w->sl = sl2[m], w->i = ix[m];
				w->v = (int8_t)want;
				w->last = (int8_t)(m / 3);
				break;
			}
		}
		if (m == NMOVE || w->steps > 20)
			w->h1 = 99;
		else
			w->steps++;
	}
	return w->h1 <= L ? w->h1 : -1;
}

/* A cube to start phase 1 from: x itself or x after pre-moves, with the
 * walk (in its direction's array) that finds its phase-1 distance. */
struct prestart {
	cubie3 y;
	uint8_t pre[MAXPRE];
	int8_t npre;
	uint8_t walk;
};

static inline int in_g1(int m)
{
	return m % 3 == 1 || m / 3 % 3 == 0;
}

/* The slot of face f among R F L B (0..3), the faces of the quarter
 * turns that leave G1. */
static inline int rflb(int f)
{
	return f % 3 - 1 + (f >= 3 ? 2 : 0);
}

/* A direction's walks: [0] the cube itself; [1 + rflb(face of m)] the
 * starts m·x; [5 + 4·i + rflb(face of m')] the starts m'·m·x for the
 * i-th m, m' a quarter turn. */
#define NWALK (5 + 8 * 4)
_Static_assert(NWALK <= 64, "a bit per walk in a uint64_t");

/* The starts with j pre-moves (1 or 2) from x: m·x for each quarter turn
 * m of R L F B (a move in G1 would not change phase 1's coordinates), or
 * m'·m·x for m' on another face than m (of two opposite faces, not the
 * negative one after the positive: they commute), each with its own
 * phase-1 distance. A move before the cube changes that distance by any
 * amount, so it takes a walk down the table — but phase 1's coordinates
 * are those of the coset G1·y, and g·y has y's for any g in G1. So m'·m·x
 * with m' in G1 (most of them) shares m·x's walk, and the two quarter
 * turns of a face share one too (R' = R2·R): 25 walks a direction where
 * each start had its own (129). Returns how many starts. */
static int prestarts(const struct search *s, const cubie3 *x, int j,
		     struct prestart *out)
{
	int k = 0;
	for (int m = 0, mi = 0; m < NMOVE; m++) {
		if (in_g1(m))
			continue;
		cubie3 y;
		cubie3_compose(&s->mv[m], x, &y);
		int wy = 1 + rflb(m / 3), i = mi++;
		if (j == 1) {
			struct prestart *p = &out[k++];
			p->y = y;
			p->pre[0] = (uint8_t)m;
			p->npre = 1;
			p->walk = (uint8_t)wy;
			continue;
		}
		for (int m2 = 0; m2 < NMOVE; m2++) {
			if (!follows(m2 / 3, m / 3))
				continue;
			struct prestart *p = &out[k++];
			cubie3_compose(&s->mv[m2], &y, &p->y);
			p->pre[0] = (uint8_t)m;
			p->pre[1] = (uint8_t)m2;
			p->npre = 2;
			p->walk = (uint8_t)(in_g1(m2) ? wy
							: 5 + 4 * i + rflb(m2 / 3));
		}
	}
	return k;
}

int twophase_solve(const void *tables, const cubie3 *c,
		   const solve_limits *lim, cube_move *out, int cap)
{
	if (!tables || !c || cap < 0 || (cap > 0 && !out))
		return CUBE_EINVAL;
	if (!header_ok(tables))
		return SOLVE_ETABLES;
	if (!cubie3_is_valid(c))
		return CUBE_EINVALID;
	cubie3 id;
	cubie3_solved(&id);
	if (cubie3_equal(c, &id))
		return 0;

	int max_len = lim && lim->max_length > 0 ? lim->max_length : 21;
	int target = lim && lim->target_length > 0 ? lim->target_length : 20;
	if (max_len > MAXLEN)
		max_len = MAXLEN;
	if (max_len > cap)
		max_len = cap;

	struct search s;
	bind(&s.t, (unsigned char *)(uintptr_t)tables);
	face_turns(s.mv);
	s.best_len = max_len + 1;
	s.npre = 0;
	s.target = target;
	s.nodes = 0;
	s.max_nodes = lim && lim->max_nodes ? lim->max_nodes : UINT64_MAX;
	s.next_poll = POLL_NODES < s.max_nodes ? POLL_NODES : s.max_nodes;
	s.walk_cost = lim && lim->label ? &s.nodes : NULL;
	s.max_pre = lim && lim->label ? 1 : MAXPRE;
	s.poll = lim ? lim->poll : NULL;
	s.ctx = lim ? lim->ctx : NULL;
	s.stop = 0;

	/* the six directions; a repeat of an earlier one is skipped */
	cubie3 ci, sc[3], sci[3];
	cubie3_invert(c, &ci);
	cubie3_solved(&sc[0]);
	cubie3_compose(&sc[0], &solve3__s_urf3, &sc[1]);
	cubie3_compose(&sc[1], &solve3__s_urf3, &sc[2]);
	for (int a = 0; a < 3; a++)
		cubie3_invert(&sc[a], &sci[a]);
	int lo = MAXLEN + 1;
	struct walk wk[6][NWALK];
	uint64_t started[6];
	for (int dir = 0; dir < 6; dir++) {
		cubie3 x;
		cubie3_compose(&sc[dir % 3], dir < 3 ? c : &ci, &x);
		cubie3_compose(&x, &sci[dir % 3], &s.cube[dir]);
		walk_start(&s.t, &wk[dir][0], &s.cube[dir]);
		started[dir] = 1;
		s.h1[dir] = walk_depth(&s.t, &wk[dir][0], MAXLEN,
				       s.walk_cost);
		if (s.h1[dir] < 0)
			return SOLVE_ETABLES;
		for (int e = 0; e < dir; e++)
			if (s.h1[e] >= 0 && cubie3_equal(&s.cube[e], &s.cube[dir]))
				s.h1[dir] = -1;
		if (s.h1[dir] >= 0 && s.h1[dir] < lo)
			lo = s.h1[dir];
	}

	/* Pre-moves: once the shortest phase-1 length has not given a short
	 * enough total, phase 1 also starts from m·X and m'·m·X, the
	 * pre-moves ending the solution: more starting points for the same
	 * total length, as min2phase does. At each total, the starts without
	 * pre-moves in every direction go first, then those with one, then
	 * two, each set worked out only when first reached. */
	struct prestart pst[6][MAXPRE + 1][8 * 15];
	int cnt[6][MAXPRE + 1]; /* starts worked out, -1: not yet */
	memset(cnt, 0xff, sizeof cnt);
	for (int n = lo; n < s.best_len && !s.stop; n++)
		for (int j = 0; j <= s.max_pre && !s.stop; j++) {
			if (j > 0 && (n == lo || n - j < MINP1PRE))
				break;
			for (int dir = 0; dir < 6 && !s.stop; dir++) {
				if (s.h1[dir] < 0)
					continue;
				struct prestart *ps = pst[dir][j];
				if (cnt[dir][j] < 0 && j == 0) {
					ps->y = s.cube[dir];
					ps->npre = 0;
					ps->walk = 0;
					cnt[dir][j] = 1;
				} else if (cnt[dir][j] < 0) {
					cnt[dir][j] = prestarts(&s, &s.cube[dir],
								j, ps);
				}
				for (int i = 0; i < cnt[dir][j] && !s.stop; i++) {
					const cubie3 *x = &ps[i].y;
					if (n >= s.best_len)
						break;
					/* a walk starts when a start of its
					 * coordinates is first tried, so one
					 * never tried costs no read */
					int w = ps[i].walk;
					if (!(started[dir] >> w & 1)) {
						walk_start(&s.t, &wk[dir][w], x);
						started[dir] |= (uint64_t)1 << w;
					}
					int h1 = walk_depth(&s.t, &wk[dir][w],
							    n - j, s.walk_cost);
					if (s.nodes >= s.max_nodes)
						s.stop = 1; /* walks spent it */
					if (h1 < 0 || s.stop)
						continue;
					s.dir = dir;
					s.n1 = n - j;
					s.npre = j;
					memcpy(s.pre, ps[i].pre, (size_t)j);
					s.cub[0] = *x;
					s.valid = 0;
					phase1(&s, get_twist(x), get_flip(x),
					       get_slice(x), h1, 0, n - j);
				}
			}
		}

	if (s.best_len > max_len)
		return SOLVE_ENOTFOUND;
	for (int i = 0; i < s.best_len; i++)
		out[i] = solve3__face_move(s.best[i]);
	return s.best_len;
}
