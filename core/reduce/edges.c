/* edges.c — the edges stage: the edge beam that pairs the edges with
 * slice–turn–slice macros that keep the centers (n <= EB_MAX_N), the edge
 * set chosen on even n, and the wing 3-cycles that finish every orbit.
 *
 * Edge beam. With the centers solved, S X S' keeps them for S any
 * inner slice or block of them (the middle slice of odd n too: it comes
 * back, so the frame holds) and X any sequence that turns each face S
 * displaced a whole number of turns: here X is made of face turns of
 * S's axis (those faces' centers S leaves alone) and conjugates A B A'
 * (A a face across S's axis, B one of S's axis). For n <= EB_MAX_N the
 * edges stage searches these (S a single slice or, up to
 * EB_WIDTH2_MAX_N, a block of two) by a beam over cost levels: level c
 * holds
 * the EB_W states (EB_W7 on 7×7) with the most neighbouring pieces
 * along the edges paired in c moves (an open slice's closing move
 * counted); from a state, a face turn (a set-up), a slice opened with
 * its first X, or one more X while the slice stays open. The state with
 * the fewest moves plus EB_FINISH per pair still missing wins: in
 * practice the first with every edge paired, the wing 3-cycles there to
 * finish any edge it left. On big cubes a path of EB_LEVELS moves cannot
 * pair every edge, so when the best state lies at the last levels its
 * moves are made and the beam starts again from there. A macro carries most pairs whole to another
 * edge, so a child is judged by the pairs it parts (a bit mask) and puts
 * together (a few place pairs), never made unless it enters its level.
 * S comes and goes, so no wing orbit's parity changes.
 */
#include "internal.h"

/* The edge beam (n <= EB_MAX_N; this file's head and reduce__beam_edges
 * say how it works): its macros' place maps, and each cost level's best
 * states. */
#define EB_NE (24 * (EB_MAX_N - 2))
#define EB_ADJ (12 * (EB_MAX_N - 3))
_Static_assert(EB_ADJ <= 128 && EB_NE <= 256, "the beam's masks and maps");
/* S: 3 axes, up to 19 layer sets (12×12: 10 slices, 9 blocks of two),
 * 3 amounts; A: none or 8; B: 6 */
#define EB_CORES (3 * 19 * 3 * 9 * 6)

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
#define EB_WMAX (EB_W > EB_W7 ? EB_W : EB_W7)
/* from EB_NARROW_N on, half as many states a level: a big cube's beam runs
 * many rounds, and a narrower one costs a few moves for much less time */
#ifndef EB_NARROW_N
#define EB_NARROW_N 10
#endif
/* 7×7 to 9×9 (longer edges than 6×6's, and time to spare): EB_W7 */
#define EB_WIDTH(n)                                                          \
	((n) >= 7 && (n) <= 9 ? EB_W7 : (n) >= EB_NARROW_N ? EB_W / 2 : EB_W)
#ifndef EB_FINISH
#define EB_FINISH 5
#endif
/* How near the last level a round's best state must lie for another
 * round (EB_ROUNDS at most) */
#define EB_ROUND_END 16

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
	uint16_t open;    /* the open slice, or EB_CLOSED */
	uint16_t move;    /* the face turn, or the macro */
	uint16_t parent;  /* the parent's index in its level */
	uint32_t hash;
};
#define EB_CLOSED 0xffff

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
	int w; /* states a level (EB_WIDTH) */
	struct enode lev[EB_LEVELS][EB_WMAX];
};

static struct ebeam *ebeam_of(struct ctx *x)
{
	return (struct ebeam *)x->region[REDUCE_R_EDGE_BEAM];
}

size_t reduce__edge_beam_size(int n)
{
	return EB_BEAM(n) ? (sizeof(struct ebeam) + 63) & ~(size_t)63 : 0;
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

/* The pairs of adj that brk parts. */
static int eb_parted(struct ebmask adj, struct ebmask brk)
{
	return popcount64(adj.w[0] & brk.w[0]) +
	       popcount64(adj.w[1] & brk.w[1]);
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

/* Pairs among the neighbours q[0..k) of v. */
static int eb_count(const uint8_t *v, uint8_t (*q)[4], int k)
{
	int sc = 0;
	for (int i = 0; i < k; i++)
		sc += v[q[i][0]] == v[q[i][1]] && v[q[i][2]] == v[q[i][3]];
	return sc;
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
	for (int e = 0; e < 12; e++)
		for (int j = 1; j < m; j++)
			for (int t = 0; t < 2; t++) {
				uint8_t *q = at[F->slot[e][j][t]];
				q[0] = (uint8_t)e, q[1] = (uint8_t)j, q[2] = (uint8_t)t;
			}
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
	if (k == E->w && pairs <= L[k - 1].pairs)
		return;
	uint32_t h = eb_hash(v, ne) ^ how->open;
	for (int i = 0; i < k; i++)
		if (L[i].hash == h && L[i].open == how->open &&
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
static int eb_round(struct ctx *x, unsigned *par, int *again)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	int n = x->n, ne = F->ne, full = 12 * (n - 3), rc;
	uint8_t tmp[EB_NE];
	memset(E->k, 0, sizeof E->k);
	struct enode how = {.kind = EB_FACE, .open = EB_CLOSED};
	eb_offer(E, 0, F->ecur, ne, eb_popcount(eb_adj(F, F->ecur, n)), &how);
	int bc = 0, bi = 0, bs = 1 << 30, c = 0;
	/* a child of level c has a score above c: none beats bs past it */
	for (; c < EB_LEVELS && c + 1 < bs; c++) {
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		for (int i = 0; i < E->k[c]; i++) {
			const struct enode *N = &E->lev[c][i];
			int score = c + EB_FINISH * (full - N->pairs);
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
				if (E->k[to] == E->w &&
				    pairs + C->njoin <= E->lev[to][E->w - 1].pairs)
					continue;
				pairs += eb_count(N->v, E->join + C->join, C->njoin);
				if (E->k[to] == E->w &&
				    pairs <= E->lev[to][E->w - 1].pairs)
					continue;
				for (int p = 0; p < ne; p++)
					tmp[p] = N->v[E->src[k][p]];
				how.kind = (uint8_t)(more ? EB_MORE : EB_NEW);
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
				how.open = EB_CLOSED;
				how.move = (uint16_t)y;
				eb_offer(E, c + 1, tmp, ne, N->pairs, &how);
			}
		}
	}
	/* the path back from the best, then its moves in order */
	struct enode path[EB_LEVELS];
	int np = 0;
	*again = c == EB_LEVELS && bc + EB_ROUND_END >= EB_LEVELS &&
		E->lev[bc][bi].pairs < full;
	for (int d = bc, i = bi; d > 0;) {
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

int reduce__beam_edges(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	int rc, again = 1;
	unsigned par = 0;
	reduce__free_read(x);
	eb_cores(x);
	ebeam_of(x)->w = x->effort > 1 ? EB_WMAX : EB_WIDTH(x->n);
	/* rounds: a beam whose best state lies at its last levels had more
	 * to pair than its levels hold (big cubes); the next round goes on
	 * from that state */
	for (int round = 0; round < EB_ROUNDS && again; round++)
		if ((rc = eb_round(x, &par, &again)) < 0)
			return rc;
	for (int p = 0; p < F->nc; p++)
		if (F->cur[p] != F->tgt[p])
			return SOLVE_ESTAGE;
	return par ? SOLVE_ESTAGE : 0;
}

/* Even n: the edge set the wings vote for (each wing votes for the
 * colours it shows on its edge), made legal (an even flip sum). */
void reduce__choose_edges(struct ctx *x, const int8_t *e_of3,
			  uint8_t ecol[12][2])
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
}

int reduce__pair_all(struct ctx *x, const int8_t *e_of3,
		     uint8_t ecol[12][2])
{
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		struct orbit o;
		uint8_t cur[NPOS], tgt[NPOS];
		reduce__wing_orbit(x, &o, k);
		reduce__read_orbit(x, &o, cur);
		reduce__wing_targets(x, &o, e_of3, ecol, tgt);
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		long rc = reduce__solve_orbit(x, &o, cur, tgt);
		if (rc < 0)
			return (int)rc;
	}
	return 0;
}
