/* orbits.c — orbits of center and wing pieces, the small model cubes that
 * work each kind of orbit out once, and the pure 3-cycles that finish any
 * orbit whatever the stages before left (solve_orbit).
 *
 * Orbits. A center sticker at (r, c) of a face can only ever reach the
 * places (r, c), (c, m-r), (m-r, m-c), (m-c, r) of the six faces (m =
 * n-1): 24 places, an orbit. A wing (an edge piece off the middle) at
 * index k along an edge reaches index k and m-k of the twelve edges: 24
 * places too. Every orbit of one kind behaves alike, whatever n: which
 * layers move which of its places depends only on which of its
 * coordinates are equal or complementary. So each kind of orbit is worked
 * out once, on a small model cube, with symbolic layers: the X-centers
 * (r = c) on a 4×4, the +-centers (c the middle) on a 5×5, the obliques
 * on a 7×7, the wings on a 4×4. Model layer L stands for one of 0, p, q,
 * m-q, m-p, m, with p and q the orbit's own coordinates.
 *
 * 3-cycles. A commutator [X, Y] = X Y X' Y' whose two arguments move
 * exactly one piece in common is a 3-cycle of pieces and touches nothing
 * else. Centers: X = iR jU iR' (a ring of slice j with one sticker lifted
 * onto U and one onto D) and Y = a U face turn: their supports share one
 * U center. Wings: X = the slice iR and Y = U R U' (the R layer with its
 * UR edge swung onto UB): they share one wing. Every such commutator on
 * the model (all axes, layers, amounts, both orders) that cycles three
 * places of the orbit becomes a "base"; a breadth-first search over the
 * 24·24·24 ordered triples then finds, for every triple, the shortest
 * set-up S (any moves: S C S' restores whatever S disturbs) that carries
 * it onto a base's triple. An orbit is solved greedily: each step applies
 * the 3-cycle with the most stickers fixed per move, until every place
 * holds its target. Identical center colours make any arrangement
 * reachable this way; wings are all different, so a wing orbit must be an
 * even permutation of its target, which the parity stage ensures.
 */
#include <string.h>

#include "internal.h"
#include "orbits.h"

/* Where sticker (f, r, c) of a size-n cube sits: x from L to R, y from D
 * to U, z from B to F (the net of docs/conventions.md). */
void reduce__where3d(int n, int f, int r, int c, int xyz[3])
{
	int m = n - 1;
	switch (f) {
	case CUBE_U: xyz[0] = c, xyz[1] = m, xyz[2] = r; break;
	case CUBE_R: xyz[0] = m, xyz[1] = m - r, xyz[2] = m - c; break;
	case CUBE_F: xyz[0] = c, xyz[1] = m - r, xyz[2] = m; break;
	case CUBE_D: xyz[0] = c, xyz[1] = 0, xyz[2] = m - r; break;
	case CUBE_L: xyz[0] = 0, xyz[1] = m - r, xyz[2] = c; break;
	default:     xyz[0] = m - c, xyz[1] = m - r, xyz[2] = 0; break;
	}
}

/* Sticker permutation of moves on the model: tracked sticker t (of nt,
 * coordinates tr[t]) goes to slot sp[t]. Returns 0, or -1 if a tracked
 * sticker left the tracked set (a model error). */
static int simulate(const struct model *M, cube_t *sim, uint8_t tr[][3],
		    int nt, const struct smove *mv, int count, uint8_t *sp)
{
	cube_init(sim, M->nm);
	for (int t = 0; t < nt; t++)
		cube__set(sim, tr[t][0], tr[t][1], tr[t][2], LABEL0 + t);
	for (int k = 0; k < count; k++)
		cube_turn(sim, mv[k].axis, mv[k].kind, mv[k].kind, mv[k].qt);
	for (int t = 0; t < nt; t++) {
		int v = cube_get(sim, tr[t][0], tr[t][1], tr[t][2]) - LABEL0;
		if (v < 0 || v >= nt)
			return -1;
		sp[v] = (uint8_t)t;
	}
	return 0;
}

/* Model moves carry model layers in .kind while simulating. */
static struct smove mk(int axis, int layer, int qt)
{
	struct smove s = {(uint8_t)axis, (uint8_t)layer, (uint8_t)(qt & 3)};
	return s;
}

static int tri(int a, int b, int c)
{
	return (a * NPOS + b) * NPOS + c;
}

/* Positions of a model permutation given by sticker slots. */
static void place_perm(const struct model *M, const uint8_t *sp,
		       const int *pos_of_slot, uint8_t *perm)
{
	for (int p = 0; p < NPOS; p++)
		perm[p] = (uint8_t)pos_of_slot[sp[M->wing ? 2 * p : p]];
}

/* Add a base if its permutation of the places is a 3-cycle not seen yet
 * (marks live in dist[], cleared before the search). */
static void try_base(struct model *M, cube_t *sim, uint8_t tr[][3],
		     int nt, const int *pos_of_slot, const struct smove *seq)
{
	if (M->nbase >= MAX_BASE)
		return;
	uint8_t sp[2 * NPOS], perm[NPOS];
	if (simulate(M, sim, tr, nt, seq, BASE_LEN, sp) < 0)
		return;
	place_perm(M, sp, pos_of_slot, perm);
	int moved[NPOS], k = 0;
	for (int p = 0; p < NPOS; p++)
		if (perm[p] != p) {
			if (k == 3)
				return;
			moved[k++] = p;
		}
	if (k != 3)
		return;
	int a = moved[0], b = perm[a], c = perm[b];
	if (perm[c] != a)
		return;
	int t = tri(a, b, c);
	if (M->dist[t] == 0)
		return;
	M->dist[t] = 0;
	M->dist[tri(b, c, a)] = 0;
	M->dist[tri(c, a, b)] = 0;
	memcpy(M->base[M->nbase++], seq, sizeof(struct smove) * BASE_LEN);
}

/* The commutator p q p' q' into s, p of lp moves and q of lq (pi and qi
 * their inverses, move by move in the order they are played). */
static void commutator(const struct smove *p, const struct smove *pi, int lp,
		       const struct smove *q, const struct smove *qi, int lq,
		       struct smove *s)
{
	int k = 0;
	for (int i = 0; i < lp; i++)
		s[k++] = p[i];
	for (int i = 0; i < lq; i++)
		s[k++] = q[i];
	for (int i = 0; i < lp; i++)
		s[k++] = pi[i];
	for (int i = 0; i < lq; i++)
		s[k++] = qi[i];
}

static void build_bases(struct model *M, cube_t *sim, uint8_t tr[][3],
			int nt, const int *pos_of_slot)
{
	int inner[4], ni = 0, nm = M->nm;
	for (int L = 1; L < nm - 1; L++)
		if (M->kind_of[L] != K_NONE)
			inner[ni++] = L;
	struct smove s[BASE_LEN];
	for (int A = 0; A < 3; A++)
	for (int B = 0; B < 3; B++) {
		if (A == B)
			continue;
		for (int ii = 0; ii < ni; ii++)
		for (int xa = 1; xa <= 3; xa += M->wing ? 1 : 2)
		for (int fb = 0; fb < nm; fb += nm - 1)
		for (int b1 = 1; b1 <= 3; b1++)
		for (int form = 0; form < 2; form++) {
			int i = inner[ii];
			if (M->wing) {
				for (int fa = 0; fa < nm; fa += nm - 1)
				for (int a2 = 1; a2 <= 3; a2++) {
					/* X = slice, Y = B A B' */
					struct smove X[1] = {mk(A, i, xa)};
					struct smove Y[3] = {mk(B, fb, b1),
							     mk(A, fa, a2),
							     mk(B, fb, 4 - b1)};
					struct smove Xi[1] = {mk(A, i, 4 - xa)};
					struct smove Yi[3] = {mk(B, fb, b1),
							      mk(A, fa, 4 - a2),
							      mk(B, fb, 4 - b1)};
					if (form)
						commutator(Y, Yi, 3, X, Xi, 1, s);
					else
						commutator(X, Xi, 1, Y, Yi, 3, s);
					try_base(M, sim, tr, nt, pos_of_slot, s);
				}
				continue;
			}
			for (int jj = 0; jj < ni; jj++) {
				int j = inner[jj];
				/* X = iA jB iA', Y = the B face fb */
				for (int a1 = 1; a1 <= 3; a1++) {
					struct smove X[3] = {mk(A, i, xa),
							     mk(B, j, a1),
							     mk(A, i, 4 - xa)};
					struct smove Xi[3] = {mk(A, i, xa),
							      mk(B, j, 4 - a1),
							      mk(A, i, 4 - xa)};
					struct smove Y[1] = {mk(B, fb, b1)};
					struct smove Yi[1] = {mk(B, fb, 4 - b1)};
					if (form)
						commutator(Y, Yi, 1, X, Xi, 3, s);
					else
						commutator(X, Xi, 3, Y, Yi, 1, s);
					try_base(M, sim, tr, nt, pos_of_slot, s);
				}
			}
		}
	}
}

/* Breadth-first over ordered triples from the bases' triples. */
static void search_setups(struct model *M, uint16_t *queue)
{
	int head = 0, tail = 0;
	for (int a = 0; a < NPOS; a++)
	for (int b = 0; b < NPOS; b++)
	for (int c = 0; c < NPOS; c++) {
		int t = tri(a, b, c);
		if (M->dist[t] == 0)
			queue[tail++] = (uint16_t)t;
	}
	M->max_dist = 0;
	while (head < tail) {
		int t = queue[head++];
		int d = M->dist[t];
		if (d >= MAX_SETUP)
			continue;
		int a = t / (NPOS * NPOS), b = t / NPOS % NPOS, c = t % NPOS;
		for (int g = 0; g < M->ngen; g++) {
			const uint8_t *pi = M->perm[M->inv[g]];
			int v = tri(pi[a], pi[b], pi[c]);
			if (M->dist[v] != UNSEEN)
				continue;
			M->dist[v] = (uint8_t)(d + 1);
			M->how[v] = (uint8_t)g;
			if (d + 1 > M->max_dist)
				M->max_dist = d + 1;
			queue[tail++] = (uint16_t)v;
		}
	}
}

/* The model's generator that turns model layer layer about axis by qt
 * quarter turns; -1 if the model has none. */
int reduce__model_gen(const struct model *M, int axis, int layer, int qt)
{
	if (axis < 0 || axis > 2 || layer < 0 || layer > 7)
		return -1;
	return M->gen_at[axis][layer][qt & 3];
}

/* Which base each depth-0 triple is: found again by simulating (cheap:
 * bases are few). */
static int index_bases(struct model *M, cube_t *sim, uint8_t tr[][3],
		       int nt, const int *pos_of_slot)
{
	for (int k = 0; k < M->nbase; k++) {
		uint8_t sp[2 * NPOS], perm[NPOS];
		if (simulate(M, sim, tr, nt, M->base[k], BASE_LEN, sp) < 0)
			return -1;
		place_perm(M, sp, pos_of_slot, perm);
		int a = 0;
		while (perm[a] == a)
			a++;
		int b = perm[a], c = perm[b];
		M->base_of[tri(a, b, c)] = (uint16_t)k;
		M->base_of[tri(b, c, a)] = (uint16_t)k;
		M->base_of[tri(c, a, b)] = (uint16_t)k;
	}
	return 0;
}

/* The tracked stickers of a center model (M_X, M_PLUS, M_OBL): its orbit's
 * four stickers a face, slot t each, at (r, c) turned about the face's
 * middle. Returns how many (NPOS). */
static int center_slots(const struct model *M, int id, uint8_t tr[][3],
			int *pos_of_slot)
{
	int m = M->nm - 1, nt = 0, r = 1, c = id == M_X ? 1 : 2;
	for (int f = 0; f < 6; f++) {
		int rr = r, cc = c;
		for (int k = 0; k < 4; k++) {
			tr[nt][0] = (uint8_t)f;
			tr[nt][1] = (uint8_t)rr;
			tr[nt][2] = (uint8_t)cc;
			pos_of_slot[nt] = nt;
			nt++;
			int t = rr;
			rr = cc;
			cc = m - t;
		}
	}
	return nt;
}

/* The tracked stickers of the wing model: the 48 border stickers off the
 * corners, and each one's partner (the other sticker of its wing, found
 * by where they sit). Returns how many (48), or -1. */
static int wing_slots(const struct model *M, uint8_t tr[][3], int *partner)
{
	int nm = M->nm, m = nm - 1, na = 0;
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < nm; r++)
			for (int c = 0; c < nm; c++) {
				int border = r == 0 || r == m || c == 0 || c == m;
				int corner = (r == 0 || r == m) &&
					     (c == 0 || c == m);
				if (!border || corner)
					continue;
				tr[na][0] = (uint8_t)f;
				tr[na][1] = (uint8_t)r;
				tr[na][2] = (uint8_t)c;
				na++;
			}
	for (int i = 0; i < na; i++) {
		int a[3], b[3];
		partner[i] = -1;
		reduce__where3d(nm, tr[i][0], tr[i][1], tr[i][2], a);
		for (int j = 0; j < na; j++) {
			reduce__where3d(nm, tr[j][0], tr[j][1], tr[j][2], b);
			if (j != i && a[0] == b[0] && a[1] == b[1] &&
			    a[2] == b[2])
				partner[i] = j;
		}
		if (partner[i] < 0)
			return -1;
	}
	return na;
}

/* The model's generators: every turn (1 to 3 quarter turns) of every
 * layer it has, and each one's inverse. */
static void model_gens(struct model *M)
{
	memset(M->gen_at, -1, sizeof M->gen_at);
	for (int axis = 0; axis < 3; axis++)
		for (int L = 0; L < M->nm; L++) {
			if (M->kind_of[L] == K_NONE)
				continue;
			for (int qt = 1; qt <= 3; qt++) {
				M->gen_at[axis][L][qt] = (int8_t)M->ngen;
				M->gen[M->ngen] = mk(axis, L, qt);
				M->inv[M->ngen] = (uint8_t)(M->ngen + 4 - 2 * qt);
				M->ngen++;
			}
		}
}

/* The wing model's places: each wing's first sticker, spread from
 * sticker 0 along every generator (a wing cannot flip in place, so this
 * never contradicts itself), then the tracked stickers reordered as
 * places' pairs (first, second). Returns 0 or -1. */
static int wing_places(struct model *M, cube_t *sim, uint8_t tr[][3], int nt,
		       const int *partner, int *pos_of_slot)
{
	uint8_t gsp[MAX_GEN][48];
	for (int g = 0; g < M->ngen; g++)
		if (simulate(M, sim, tr, nt, &M->gen[g], 1, gsp[g]) < 0)
			return -1;
	int first[48], stack[48], sp = 0, npos = 0;
	for (int t = 0; t < 48; t++)
		first[t] = -1; /* 1 first, 0 second, -1 unknown */
	first[0] = 1;
	first[partner[0]] = 0;
	stack[sp++] = 0;
	while (sp) {
		int s = stack[--sp];
		for (int g = 0; g < M->ngen; g++) {
			int u = gsp[g][s];
			if (first[u] == 0)
				return -1;
			if (first[u] == 1)
				continue;
			first[u] = 1;
			first[partner[u]] = 0;
			stack[sp++] = u;
		}
	}
	uint8_t ord[48][3];
	for (int t = 0; t < 48; t++) {
		if (first[t] < 0)
			return -1;
		if (first[t] != 1)
			continue;
		memcpy(M->st[npos][0], tr[t], 3);
		memcpy(M->st[npos][1], tr[partner[t]], 3);
		memcpy(ord[2 * npos], tr[t], 3);
		memcpy(ord[2 * npos + 1], tr[partner[t]], 3);
		npos++;
	}
	if (npos != NPOS)
		return -1;
	memcpy(tr, ord, sizeof ord);
	for (int t = 0; t < 48; t++)
		pos_of_slot[t] = t / 2;
	return 0;
}

int reduce__model_build(struct model *M, int id, cube_t *sim, uint16_t *queue)
{
	static const uint8_t kinds[M_COUNT][8] = {
		[M_X] = {K_0, K_P, K_MP, K_M},
		[M_PLUS] = {K_0, K_P, K_Q, K_MP, K_M},
		[M_OBL] = {K_0, K_P, K_Q, K_NONE, K_MQ, K_MP, K_M},
		[M_WING] = {K_0, K_P, K_MP, K_M},
	};
	static const int sizes[M_COUNT] = {4, 5, 7, 4};
	memset(M, 0, offsetof(struct model, base));
	M->nm = sizes[id];
	M->wing = id == M_WING;
	memcpy(M->kind_of, kinds[id], 8);

	/* tracked stickers: slot t; for wings slots 2p and 2p+1 */
	uint8_t tr[2 * NPOS][3];
	int pos_of_slot[2 * NPOS], partner[48];
	int nt = M->wing ? wing_slots(M, tr, partner)
			 : center_slots(M, id, tr, pos_of_slot);
	if (nt < 0)
		return -1;
	model_gens(M);
	if (M->wing) {
		if (wing_places(M, sim, tr, nt, partner, pos_of_slot) < 0)
			return -1;
	} else {
		for (int p = 0; p < NPOS; p++)
			memcpy(M->st[p][0], tr[p], 3);
	}
	/* each generator as a permutation of the places */
	for (int g = 0; g < M->ngen; g++) {
		uint8_t sp[2 * NPOS];
		if (simulate(M, sim, tr, nt, &M->gen[g], 1, sp) < 0)
			return -1;
		place_perm(M, sp, pos_of_slot, M->perm[g]);
		if (M->wing)
			for (int p = 0; p < NPOS; p++)
				if (sp[2 * p + 1] != 2 * M->perm[g][p] + 1)
					return -1;
	}

	memset(M->dist, UNSEEN, sizeof M->dist);
	M->nbase = 0;
	build_bases(M, sim, tr, nt, pos_of_slot);
	if (M->nbase == 0 || index_bases(M, sim, tr, nt, pos_of_slot) < 0)
		return -1;
	search_setups(M, queue);
	return 0;
}

static int kind_val(int kind, int p, int q, int m)
{
	switch (kind) {
	case K_0: return 0;
	case K_P: return p;
	case K_Q: return q;
	case K_MQ: return m - q;
	case K_MP: return m - p;
	default: return m;
	}
}

void reduce__orbit_init(struct orbit *o, const struct model *M, int p,
			int q, int m)
{
	o->M = M;
	o->p = p;
	o->q = q;
	o->p_hi = p;
	for (int i = 0; i < NPOS; i++)
		for (int s = 0; s < 1 + M->wing; s++) {
			o->st[i][s][0] = M->st[i][s][0];
			o->st[i][s][1] = (uint16_t)kind_val(
				M->kind_of[M->st[i][s][1]], p, q, m);
			o->st[i][s][2] = (uint16_t)kind_val(
				M->kind_of[M->st[i][s][2]], p, q, m);
		}
}

static int emit_s(struct ctx *x, const struct orbit *o, struct smove s,
		  int inverse)
{
	int kind = o->M->kind_of[s.kind], qt = inverse ? 4 - s.qt : s.qt;
	/* the block of orbits p..p_hi: each layer of it moves its own
	 * orbit's places as layer p moves p's */
	if (o->p_hi != o->p && kind == K_P)
		return emit_block(x, s.axis, o->p, o->p_hi, qt);
	if (o->p_hi != o->p && kind == K_MP)
		return emit_block(x, s.axis, x->m - o->p_hi, x->m - o->p, qt);
	return emit(x, s.axis, kind_val(kind, o->p, o->q, x->m), qt);
}

/* A place's token: its colour, or for wings first·6 + second. */
void reduce__read_orbit(const struct ctx *x, const struct orbit *o,
			uint8_t *cur)
{
	for (int i = 0; i < NPOS; i++) {
		const uint16_t *a = o->st[i][0];
		int v = cube_get(x->c, a[0], a[1], a[2]);
		if (o->M->wing) {
			const uint16_t *b = o->st[i][1];
			v = v * 6 + cube_get(x->c, b[0], b[1], b[2]);
		}
		cur[i] = (uint8_t)v;
	}
}

/* Apply the 3-cycle a → b → c (the piece at a goes to b …) as set-up,
 * base, set-up undone; the set-up (into setup, its length *nsetup)
 * starts with the npre generators pre (one of its shortest does). */
static int apply_cycle(struct ctx *x, const struct orbit *o, int a, int b,
		       int c, const int *pre, int npre, int *setup, int *nsetup)
{
	const struct model *M = o->M;
	int t = tri(a, b, c), ns = 0, rc;
	while (M->dist[t] > 0 && M->dist[t] != UNSEEN) {
		int g = ns < npre ? pre[ns] : M->how[t];
		setup[ns++] = g;
		if ((rc = emit_s(x, o, M->gen[g], 0)) < 0)
			return rc;
		a = M->perm[g][a], b = M->perm[g][b], c = M->perm[g][c];
		t = tri(a, b, c);
	}
	const struct smove *bs = M->base[M->base_of[t]];
	for (int k = 0; k < BASE_LEN; k++)
		if ((rc = emit_s(x, o, bs[k], 0)) < 0)
			return rc;
	*nsetup = ns;
	while (ns > 0)
		if ((rc = emit_s(x, o, M->gen[setup[--ns]], 1)) < 0)
			return rc;
	return 0;
}

/* The stickers the 3-cycle a → y → z (a's sticker, which y wants, to y,
 * y's to z, z's to a) puts on their targets, less those it takes off. */
static int cycle_gain(const uint8_t *cur, const uint8_t *tgt, int a, int y,
		      int z)
{
	return 1 - (cur[a] == tgt[a]) + (cur[y] == tgt[z]) +
	       (cur[z] == tgt[a]) - (cur[z] == tgt[z]);
}

/* Greedy: the 3-cycle with the best places-fixed per move, until cur is
 * tgt, each made on the cube. Returns the moves, or an error. */
long reduce__solve_orbit(struct ctx *x, const struct orbit *o,
			 uint8_t *cur, const uint8_t *tgt)
{
	const struct model *M = o->M;
	long moves = 0;
	/* the last cycle ended with its set-up undone: a cycle with a
	 * shortest set-up that begins with the same k moves costs 2k
	 * moves less (they cancel) */
	int ps[MAX_SETUP], np = 0, bk = 0;
	for (int step = 0; step <= NPOS; step++) {
		int wrong = 0;
		for (int i = 0; i < NPOS; i++)
			wrong += cur[i] != tgt[i];
		if (!wrong)
			return moves;
		int bg = 0, bc = 1, ba = -1, bb = -1, bz = -1;
		for (int y = 0; y < NPOS; y++) {
			if (cur[y] == tgt[y])
				continue;
			for (int a = 0; a < NPOS; a++) {
				if (a == y || cur[a] != tgt[y])
					continue;
				for (int z = 0; z < NPOS; z++) {
					if (z == a || z == y)
						continue;
					int d = M->dist[tri(a, y, z)];
					if (d == UNSEEN)
						continue;
					int g = cycle_gain(cur, tgt, a, y, z);
					int k = 0;
					for (int pa = a, py = y, pz = z;
					     k < np && k < d; k++) {
						const uint8_t *pl = M->perm[ps[k]];
						pa = pl[pa], py = pl[py], pz = pl[pz];
						if (M->dist[tri(pa, py, pz)] != d - 1 - k)
							break;
					}
					int cost = BASE_LEN + 2 * (d - k);
					if (g > 0 && g * bc > bg * cost) {
						bg = g, bc = cost;
						ba = a, bb = y, bz = z, bk = k;
					}
				}
			}
		}
		if (ba < 0)
			return SOLVE_ESTAGE;
		uint8_t t = cur[bz];
		cur[bz] = cur[bb];
		cur[bb] = cur[ba];
		cur[ba] = t;
		moves += bc;
		int pre[MAX_SETUP];
		memcpy(pre, ps, sizeof pre);
		int rc = apply_cycle(x, o, ba, bb, bz, pre, bk, ps, &np);
		if (rc < 0)
			return rc;
		uint8_t now[NPOS];
		reduce__read_orbit(x, o, now);
		if (memcmp(now, cur, NPOS) != 0)
			return SOLVE_ESTAGE;
	}
	return SOLVE_ESTAGE;
}

/* ------------------------------------------- 3-cycles over every orbit */

/* Where the plan takes the block commutators (plan.blocks) they leave
 * thousands of center orbits (3,969 on 128×128) to the 3-cycles, about a
 * third of their stickers wrong: 12,000 cycles, 60 % of the answer. Each
 * cycle ends with its set-up undone, and a next cycle whose shortest set-up
 * begins with the same turn cancels that turn and its undoing (2
 * moves). An inner layer is a layer of many orbits (a row and a column
 * of them), so the next cycle may be in another orbit: rather than
 * finish the orbits one by one, each step takes, over all of them, the
 * cycle with the most stickers fixed per move given the turn the last
 * set-up began with, and a run of cycles shares one set-up. Each orbit
 * keeps its best cycle for each of its model's turns (and for none),
 * weighed again only when a cycle changes it. */
#define CY_KINDS 3 /* M_X, M_PLUS, M_OBL */
/* a cycle that cancels nothing begins with the shortest first turn whose
 * next cycle does best (0.2-0.4 % shorter than the search's own first
 * turn) */
#ifndef CY_PICK
#define CY_PICK 1
#endif
#define CY_NONE MAX_GEN

struct cybest {
	uint8_t g, cost, a, y, z, k; /* k: begins with the context's turn */
};

struct cyorbit {
	uint16_t p, q;
	uint8_t id;
	int8_t key; /* its best cycle without a context: rate rank, or -1 */
	uint8_t cur[NPOS];
	struct cybest best[MAX_GEN + 1]; /* per model generator, then none */
};

/* Rates (stickers per move) a cycle without a context may have: 1 to 3
 * stickers, 8 + 2·d moves (d <= MAX_SETUP). */
#define CY_COSTS (BASE_LEN + 2 * MAX_SETUP)
#define CY_RATES (3 * (MAX_SETUP + 1))
/* orbits of the largest cube, as bits */
#define CY_WORDS 64
_Static_assert((REDUCE_MAX_N - 3) * (REDUCE_MAX_N - 3) / 4 + REDUCE_MAX_N <=
		       64 * CY_WORDS,
	       "the orbits as bits");

struct cywork {
	/* bit g of dec[id][t]: generator g begins a shortest set-up of
	 * triple t (its distance one less after it) */
	uint64_t dec[CY_KINDS][NTRI];
	/* the rate rank of g stickers in cost moves (higher is better),
	 * and by rank the orbits whose best cycle without a context has
	 * it */
	int8_t rank[4][CY_COSTS + 1];
	uint64_t bucket[CY_RATES][CY_WORDS];
	const struct model *M[CY_KINDS];
	int8_t layer_of[CY_KINDS][6];  /* kind (K_0 … K_M) → model layer */
	uint8_t tgt[CY_KINDS][NPOS];
	int n;
	int off[REDUCE_MAX_N]; /* row r's first orbit, (r, r) */
	struct cyorbit o[];
};
_Static_assert(MAX_GEN <= 64, "a triple's first turns as one word");

size_t reduce__cycles_size(int n)
{
	return sizeof(struct cywork) +
	       (size_t)center_orbits(n) * sizeof(struct cyorbit);
}

static int cy_better(const struct cybest *b, int g, int cost)
{
	return g * b->cost > b->g * cost;
}

/* Orbit o's best cycle for every context, from its places now. */
static void cy_eval(const struct cywork *W, const struct model *M,
		    struct cyorbit *o)
{
	const uint8_t *cur = o->cur, *tgt = W->tgt[o->id];
	const uint64_t *dec = W->dec[o->id];
	struct cybest none = {.cost = 1};
	for (int g = 0; g <= MAX_GEN; g++)
		o->best[g] = none;
	for (int y = 0; y < NPOS; y++) {
		if (cur[y] == tgt[y])
			continue;
		for (int a = 0; a < NPOS; a++) {
			if (a == y || cur[a] != tgt[y])
				continue;
			for (int z = 0; z < NPOS; z++) {
				int t = tri(a, y, z);
				if (z == a || z == y || M->dist[t] == UNSEEN)
					continue;
				int d = M->dist[t], g = cycle_gain(cur, tgt, a, y, z);
				if (g <= 0)
					continue;
				int cost = BASE_LEN + 2 * d;
				struct cybest c = {(uint8_t)g, (uint8_t)cost,
						   (uint8_t)a, (uint8_t)y,
						   (uint8_t)z, 0};
				if (cy_better(&o->best[CY_NONE], g, cost))
					o->best[CY_NONE] = c;
				c.k = 1;
				c.cost = (uint8_t)(cost - 2);
				for (uint64_t bits = d > 0 ? dec[t] : 0; bits;
				     bits &= bits - 1) {
					int f = __builtin_ctzll(bits);
					if (cy_better(&o->best[f], g, cost - 2))
						o->best[f] = c;
				}
			}
		}
	}
	const struct cybest *nb = &o->best[CY_NONE];
	for (int g = 0; g < M->ngen; g++)
		if (cy_better(&o->best[g], nb->g, nb->cost))
			o->best[g] = *nb;
}

/* Orbit i's place among the rates, after cy_eval. */
static void cy_file(struct cywork *W, int i)
{
	struct cyorbit *o = &W->o[i];
	uint64_t bit = 1ull << (i % 64);
	if (o->key >= 0)
		W->bucket[o->key][i / 64] &= ~bit;
	const struct cybest *nb = &o->best[CY_NONE];
	o->key = nb->g ? W->rank[nb->g][nb->cost] : -1;
	if (o->key >= 0)
		W->bucket[o->key][i / 64] |= bit;
}

/* The best cycle of orbit i in context g (CY_NONE: none) into *bb, *bo,
 * *bg if better. */
static void cy_offer(const struct cywork *W, int i, int g, struct cybest *bb,
		     int *bo, int *bg)
{
	const struct cybest *b = &W->o[i].best[g];
	if (b->g && (cy_better(bb, b->g, b->cost) ||
		     (!cy_better(b, bb->g, bb->cost) && i < *bo)))
		*bo = i, *bb = *b, *bg = g;
}

/* The generator of orbit o's model that is cube turn (axis, layer, qt),
 * or CY_NONE when the layer is not one of the orbit's. */
static int cy_gen(const struct cywork *W, const struct cyorbit *o, int m,
		  int axis, int layer, int qt)
{
	int p = o->p, q = o->q, kind = layer == 0 ? K_0
				       : layer == m ? K_M
				       : layer == p ? K_P
				       : layer == m - p ? K_MP
				       : layer == q ? K_Q
				       : layer == m - q ? K_MQ
						    : -1;
	int L = kind < 0 ? -1 : W->layer_of[o->id][kind];
	int g = L < 0 ? -1 : W->M[o->id]->gen_at[axis][L][qt];
	return g < 0 ? CY_NONE : g;
}

/* The best cycle, but orbit skip's, that begins by cancelling the turn
 * (axis, layer, qt): of the orbits that have that layer (a face: all). */
static void cy_line(const struct cywork *W, int m, int axis, int layer,
		    int qt, int skip, struct cybest *bb, int *bo, int *bg)
{
	if (layer == 0 || layer == m) {
		for (int i = 0; i < W->n; i++)
			if (i != skip)
				cy_offer(W, i,
					 cy_gen(W, &W->o[i], m, axis, layer, qt),
					 bb, bo, bg);
		return;
	}
	int L = layer < m - layer ? layer : m - layer;
	/* row L: orbits (L, c) */
	if (L < m - L)
		for (int i = W->off[L]; i < W->off[L] + m - 2 * L; i++)
			if (i != skip)
				cy_offer(W, i, cy_gen(W, &W->o[i], m, axis, layer, qt),
					 bb, bo, bg);
	/* columns L and m - L: orbits (r, c), r < L */
	for (int side = 0; side < 2; side++) {
		int c = side ? m - L : L;
		for (int r = 1; r < c && r < m - c; r++) {
			int i = W->off[r] + c - r;
			if (i != skip)
				cy_offer(W, i, cy_gen(W, &W->o[i], m, axis, layer, qt),
					 bb, bo, bg);
		}
	}
}

/* Every center orbit solved by 3-cycles, as above, in scratch (size
 * bytes, reduce__cycles_size(n) at least). 0, or an error. */
int reduce__cycles_all(struct ctx *x, void *scratch, size_t size)
{
	struct cywork *W = scratch;
	int m = x->m;
	if (size < reduce__cycles_size(x->n))
		return SOLVE_ESTAGE;
	for (int id = 0; id < CY_KINDS; id++) {
		const struct model *M = W->M[id] = &x->w->model[id];
		memset(W->layer_of[id], -1, sizeof W->layer_of[id]);
		for (int L = 0; L < M->nm; L++)
			if (M->kind_of[L] != K_NONE)
				W->layer_of[id][M->kind_of[L]] = (int8_t)L;
		for (int t = 0; t < NTRI; t++) {
			uint64_t bits = 0;
			int d = M->dist[t];
			if (d != UNSEEN && d > 0) {
				int a = t / (NPOS * NPOS), b = t / NPOS % NPOS,
				    c = t % NPOS;
				for (int g = 0; g < M->ngen; g++) {
					const uint8_t *pl = M->perm[g];
					if (M->dist[tri(pl[a], pl[b], pl[c])] ==
					    d - 1)
						bits |= 1ull << g;
				}
			}
			W->dec[id][t] = bits;
		}
		for (int i = 0; i < NPOS; i++)
			W->tgt[id][i] = (uint8_t)x->tcol[M->st[i][0][0]];
	}
	/* the rates' ranks: each (g, cost) above every one it beats */
	memset(W->rank, -1, sizeof W->rank);
	memset(W->bucket, 0, sizeof W->bucket);
	for (int g = 1; g <= 3; g++)
		for (int d = 0; d <= MAX_SETUP; d++) {
			int cost = BASE_LEN + 2 * d, below = 0;
			for (int g2 = 1; g2 <= 3; g2++)
				for (int d2 = 0; d2 <= MAX_SETUP; d2++)
					below += g * (BASE_LEN + 2 * d2) >
						 g2 * cost;
			W->rank[g][cost] = (int8_t)below;
		}
	W->n = 0;
	for (int r = 1; r < m - r; r++)
		for (int c = r; c < m - r; c++) {
			if (c == r)
				W->off[r] = W->n;
			struct cyorbit *o = &W->o[W->n];
			o->key = -1;
			o->p = (uint16_t)r, o->q = (uint16_t)c;
			o->id = (uint8_t)(c == r ? M_X : 2 * c == m ? M_PLUS
								     : M_OBL);
			struct orbit orb;
			reduce__orbit_init(&orb, &x->w->model[o->id], r, c, m);
			reduce__read_orbit(x, &orb, o->cur);
			cy_eval(W, orb.M, o);
			cy_file(W, W->n++);
		}
	/* the turn the last set-up began with: axis, layer, qt (-1: none) */
	int cax = -1, clayer = 0, cqt = 0;
	for (long step = 0;; step++) {
		if (step % 256 == 0 && poll_now(x))
			return SOLVE_ENOTFOUND;
		int bo = -1, bg = CY_NONE;
		struct cybest bb = {.cost = 1};
		/* the best without the context: the first orbit of the
		 * highest rate */
		for (int k = CY_RATES - 1; k >= 0 && bo < 0; k--)
			for (int w = 0; w < CY_WORDS; w++)
				if (W->bucket[k][w]) {
					int i = 64 * w +
						__builtin_ctzll(W->bucket[k][w]);
					cy_offer(W, i, CY_NONE, &bb, &bo, &bg);
					break;
				}
		if (cax >= 0)
			cy_line(W, m, cax, clayer, cqt, -1, &bb, &bo, &bg);
		if (bo < 0)
			break;
		struct cyorbit *o = &W->o[bo];
		const struct model *M = &x->w->model[o->id];
		struct orbit orb;
		reduce__orbit_init(&orb, M, o->p, o->q, m);
		int pre = bb.k ? bg : 0, npre = bb.k, setup[MAX_SETUP], ns = 0;
		if (!npre && CY_PICK) {
			/* of its shortest set-ups' first turns, the one whose
			 * next cycle (in another orbit) does best */
			struct cybest nb = {.cost = 1};
			int no = -1, ng = CY_NONE, best_g = -1;
			for (uint64_t bits = W->dec[o->id][tri(bb.a, bb.y, bb.z)];
			     bits; bits &= bits - 1) {
				int g = __builtin_ctzll(bits);
				struct smove s = M->gen[g];
				struct cybest before = nb;
				cy_line(W, m, s.axis,
					kind_val(M->kind_of[s.kind], o->p, o->q, m),
					s.qt, bo, &nb, &no, &ng);
				if (best_g < 0 || nb.g != before.g ||
				    nb.cost != before.cost)
					best_g = g;
			}
			if (best_g >= 0)
				pre = best_g, npre = 1;
		}
		int rc = apply_cycle(x, &orb, bb.a, bb.y, bb.z, &pre, npre,
				     setup, &ns);
		if (rc < 0)
			return rc;
		uint8_t t = o->cur[bb.z];
		o->cur[bb.z] = o->cur[bb.y];
		o->cur[bb.y] = o->cur[bb.a];
		o->cur[bb.a] = t;
		uint8_t now[NPOS];
		reduce__read_orbit(x, &orb, now);
		if (memcmp(now, o->cur, NPOS) != 0)
			return SOLVE_ESTAGE;
		cax = -1;
		if (ns > 0) {
			struct smove s = M->gen[setup[0]];
			cax = s.axis;
			clayer = kind_val(M->kind_of[s.kind], o->p, o->q, m);
			cqt = s.qt;
		}
		cy_eval(W, M, o);
		cy_file(W, bo);
	}
	/* nothing left to gain: every orbit solved, or a model error */
	for (int i = 0; i < W->n; i++)
		if (memcmp(W->o[i].cur, W->tgt[W->o[i].id], NPOS) != 0)
			return SOLVE_ESTAGE;
	return 0;
}
