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
#include "internal.h"

/* Where sticker (f, r, c) of a size-n cube sits: x from L to R, y from D
 * to U, z from B to F (the net of DESIGN.md). */
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
	for (int g = 0; g < M->ngen; g++)
		if (M->gen[g].axis == axis && M->gen[g].kind == layer &&
		    M->gen[g].qt == (qt & 3))
			return g;
	return -1;
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

int reduce__build_model(struct model *M, int id, cube_t *sim, uint16_t *queue)
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
	int nm = M->nm, m = nm - 1;

	/* tracked stickers: slot t; for wings slots 2p and 2p+1 */
	uint8_t tr[2 * NPOS][3];
	int nt = 0, pos_of_slot[2 * NPOS], partner[48];
	if (!M->wing) {
		int r = 1, c = id == M_X ? 1 : 2;
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
	} else {
		/* the 48 border stickers off the corners, paired by where
		 * they sit */
		uint8_t all[48][3];
		int na = 0;
		for (int f = 0; f < 6; f++)
			for (int r = 0; r < nm; r++)
				for (int c = 0; c < nm; c++) {
					int border = r == 0 || r == m || c == 0 ||
						     c == m;
					int corner = (r == 0 || r == m) &&
						     (c == 0 || c == m);
					if (!border || corner)
						continue;
					all[na][0] = (uint8_t)f;
					all[na][1] = (uint8_t)r;
					all[na][2] = (uint8_t)c;
					na++;
				}
		for (int i = 0; i < na; i++) {
			int a[3], b[3];
			partner[i] = -1;
			reduce__where3d(nm, all[i][0], all[i][1], all[i][2], a);
			for (int j = 0; j < na; j++) {
				reduce__where3d(nm, all[j][0], all[j][1],
						all[j][2], b);
				if (j != i && a[0] == b[0] && a[1] == b[1] &&
				    a[2] == b[2])
					partner[i] = j;
			}
			if (partner[i] < 0)
				return -1;
		}
		/* generators' permutations of the 48, to orient the places */
		for (int t = 0; t < na; t++)
			memcpy(tr[t], all[t], 3);
		nt = na;
	}

	/* generators */
	for (int axis = 0; axis < 3; axis++)
		for (int L = 0; L < nm; L++) {
			if (M->kind_of[L] == K_NONE)
				continue;
			for (int qt = 1; qt <= 3; qt++) {
				M->gen[M->ngen] = mk(axis, L, qt);
				M->inv[M->ngen] = (uint8_t)(M->ngen + 4 - 2 * qt);
				M->ngen++;
			}
		}

	if (M->wing) {
		/* first stickers: spread from sticker 0 along every
		 * generator; a wing cannot flip in place, so this never
		 * contradicts itself */
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
	} else {
		for (int p = 0; p < NPOS; p++)
			memcpy(M->st[p][0], tr[p], 3);
	}
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
	return emit(x, s.axis,
		    kind_val(o->M->kind_of[s.kind], o->p, o->q, x->m),
		    inverse ? 4 - s.qt : s.qt);
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
				int base_gain = 1 - (cur[a] == tgt[a]);
				for (int z = 0; z < NPOS; z++) {
					if (z == a || z == y)
						continue;
					int d = M->dist[tri(a, y, z)];
					if (d == UNSEEN)
						continue;
					int g = base_gain + (cur[y] == tgt[z]) +
						(cur[z] == tgt[a]) -
						(cur[z] == tgt[z]);
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
