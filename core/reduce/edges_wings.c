/* edges_wings.c — the multi-orbit wing commutators (plan.wing_comms) and
 * the one-orbit wing 3-cycles (orbits.c) that finish every orbit:
 * reduce__pair_all. */
#include <string.h>

#include "edges.h"
#include "orbits.h"
#include "parity.h"

/* Where the plan says (plan.c: from 9×9), after the edge beam if it runs. The wing 3-cycle
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
/* Past the beam the commutators work in its region, which it no longer
 * needs. */
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

size_t reduce__wing_work_size(void)
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

/* Orbits k and i hold their pieces alike, and alike out of place. */
static int same_cycles(const struct mwork *W, int k, int i)
{
	return memcmp(W->cur[k], W->tgt[k], NPOS) != 0 &&
	       memcmp(W->cur[k], W->cur[i], NPOS) == 0 &&
	       memcmp(W->tgt[k], W->tgt[i], NPOS) == 0;
}

int reduce__pair_all(struct ctx *x, const int8_t *e_of3,
		     uint8_t ecol[12][2])
{
	int K = wing_orbits(x->n), rc;
	x->wing_shared = 0;
	if (x->plan.wing_comms) {
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
		/* neighbouring orbits that need the same cycles (the beam
		 * often leaves whole half edges out of place, the same in
		 * every orbit) are solved once, their layers turned as one
		 * block */
		for (int k = 1; k <= K;) {
			if (poll_now(x))
				return SOLVE_ENOTFOUND;
			int j = k;
			while (j < K && same_cycles(W, k, j + 1))
				j++;
			struct orbit o = W->orb[k];
			o.p_hi = j;
			long r = reduce__solve_orbit(x, &o, W->cur[k], W->tgt[k]);
			if (r < 0)
				return (int)r;
			for (int i = k + 1; i <= j; i++) {
				reduce__read_orbit(x, &W->orb[i], W->cur[i]);
				if (memcmp(W->cur[i], W->tgt[i], NPOS) != 0)
					return SOLVE_ESTAGE;
			}
			x->wing_shared += j - k;
			k = j + 1;
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
