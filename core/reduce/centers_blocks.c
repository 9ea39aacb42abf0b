/* centers_blocks.c — the centers past STAGED_MAX_N before their
 * 3-cycles (plan.blocks): a slice phase, then block commutators that move
 * obliques in many orbits at once.
 *
 * Slices. While centers are random, one inner slice or block of slices
 * (one move) puts tens of center stickers on their face: greedily the
 * turn that puts the most, from counts of each colour on each face in
 * each layer, while it puts at least SLC_MIN; never the middle slice of
 * odd n (the frame). Each wing orbit's slices then get one quarter turn
 * more where their count is odd, so the parity the oll_parity stage set
 * holds (per orbit in bytes: turn_par's bits end at 31 orbits).
 *
 * Block commutators. A block turn (3-7Rw) counts one move and turns
 * layers 3..7 together. Restricted to one center orbit, a turn of
 * layers lo..hi is the turn of those of the orbit's own layers (0, p, c,
 * m-c, m-p, m) that lie in lo..hi, all at once (turns of one axis
 * commute). So what any sequence of block turns does to an orbit is the
 * model's (orbits.c) sequence of its layers' turns: exact, no geometry.
 *
 * The commutator is [X, Y] (or [Y, X]) with X = I_A J_B I_A', I and J
 * ranges of inner layers turned about axes A != B, and Y a turn about B.
 * An orbit with no layer in I sees X as a turn about B, which commutes
 * with Y; one with no layer in J sees X as nothing: either is left
 * alone. The obliques (p, c) and (p, m-c), p < c < m/2, share their
 * layers p and c below the middle: a pair, at (p, c) of a triangular
 * grid. Let one range hold rows p1..p2 of the grid, the other a set
 * of columns past p2 (one block turn for each run of them), each either
 * as is or mirrored (m - layer): then a pair has a layer in both
 * exactly when its row and its column are in them, and then exactly one
 * in each, the same kind (p, c, m-c or m-p) for every such pair. Every
 * other orbit (the other pairs, the X-centers, the +-centers of odd n)
 * is left alone. With Y a face turn, or a turn of the rows or of the
 * columns (mirrored or not), those pairs all see one and the same map of
 * their 48 places: the single-layer commutator's. A face Y gives a
 * 3-cycle on one of the two orbits (two of its places on Y's face: it
 * fixes two stickers at most); a slice Y, larger maps.
 *
 * The variants (axes, amounts, order, which range holds the rows, the
 * mirrors, Y), one per distinct map (4,560 of 15,552), are weighed on
 * every pair by the stickers their map puts on its face less those it
 * takes off. Sweeps over the variants with falling thresholds (the
 * plan's blk_thr: 12, 8, 6, 5, 4, then 3 stickers for the commutator's 8
 * moves; a 3-cycle costs about 3.6 moves a sticker) take each variant's
 * best block of at most blk_rows rows (more, and more sweeps, at a
 * higher effort) while it gains
 * the threshold, searching again after each. A run of columns past the first costs the moves it adds (2 in
 * J, 4 in I, 2 more when Y turns the columns) at the threshold's rate;
 * the best set for a range of rows is a two-state scan over the column
 * sums (in a run or not), the old maximum-sum run when one run is best.
 * Rows whose positive gains cannot reach the best are passed over, and
 * after a commutator only its pairs' gains are weighed again. Every
 * commutator's pairs are read back from the cube and compared with what
 * the map said. The per-orbit 3-cycles (orbits.c) finish. Figures:
 * docs/solvers.md.
 */
#include <string.h>

#include "centers_methods.h"
#include "orbits.h"

#define BLK_MAXV 4608 /* as built: 4,560 */
#define BLK_HASH 16384
#define BLK_MAXH 63 /* pairs' layers 1 .. h, h < m/2 */
#define SLC_MIN 2  /* stickers a slice turn must put, at least */
/* a block's rows, at most, and the sweeps' thresholds are the plan's
 * (plan.c: blk_rows, blk_thr, by effort) */
/* Y's kinds: 0, 1 the faces, 2-5 the rows' and the columns' range and
 * their mirrors (6-9, the blocks from a face to the end of either, 0.8%
 * shorter on 64×64 and 128×128 for a quarter more time, left out) */
#define BLK_YK 6
_Static_assert(BLK_YK <= 6, "var_emit makes Y of kinds 0 to 5");
/* the 3-cycles then over every orbit at once (orbits.c) */
#ifndef CY_ALL
#define CY_ALL 1
#endif

struct bvar {
	uint8_t a, b, xa, a1, fm, b1, form; /* X = I_a^xa J_b^a1 I_a^-xa, Y
					      * about b, b1 quarter turns, of
					      * kind fm (BLK_YK); form 1:
					      * [Y, X] */
	uint8_t a_is_c, mir_a, mir_b; /* the A range holds the columns c
				       * (else rows p); ranges mirrored */
	uint8_t n[2];                 /* places moved on each orbit */
	uint8_t mv[2][NPOS][2];       /* (from, to) */
	/* the gain on a pair, read off the places whose sticker's
	 * target face changes: +1 if it holds colour ac[k][0] (the new
	 * place's), -1 if ac[k][1] (the old one's) */
	uint8_t nact, act[2 * NPOS], ac[2 * NPOS][2];
	int best;      /* best score (8 per sticker) when last searched */
	uint8_t rows[2]; /* p1, p2 of that best */
	uint64_t cols;   /* and its columns: bit c */
};

/* The slice phase: center stickers of each colour on each face within
 * each layer of each axis, and where a quarter turn takes each face. */
struct slc {
	int16_t cnt[3][REDUCE_MAX_N][6][6];
	int8_t nf[3][4][6];     /* face f after q quarter turns about axis
				 * a; -1 for the two faces a goes through */
	int16_t lk[3][6][3];    /* layer of axis a of sticker (r, c) of
				 * face f: lk[0] + lk[1] r + lk[2] c */
};

struct blkw {
	struct slc S;
	int h, nvar;
	uint8_t tgt[NPOS];
	int16_t slot[BLK_HASH];
	int8_t g[BLK_MAXH + 1][BLK_MAXH + 1]; /* one variant's gains */
	int rowpos[BLK_MAXH + 1];
	struct bvar v[BLK_MAXV];
	/* pair (p, c): [0] orbit (p, c), [1] orbit (p, m-c) */
	uint8_t cur[BLK_MAXH + 1][BLK_MAXH + 1][2][NPOS];
	/* the same, place by place: curt[i][p][c] = cur[p][c][i / NPOS][i %
	 * NPOS], so that a variant's gains on every pair are a few passes
	 * over arrays (var_gains_all) */
	uint8_t curt[2 * NPOS][BLK_MAXH + 1][BLK_MAXH + 1];
};

static struct blkw *blkw_of(struct ctx *x)
{
	return (struct blkw *)x->region[REDUCE_R_BLOCKS];
}

size_t reduce__blocks_size(int n)
{
	/* after the commutators the 3-cycles over every orbit work here */
	size_t s = sizeof(struct blkw), cy = reduce__cycles_size(n);
	return reduce__plan(n, 1).blocks ? ((s > cy ? s : cy) + 63) & ~(size_t)63 : 0;
}

/* The model (7×7) layer of each kind. */
enum { L_P = 1, L_Q = 2, L_MQ = 4, L_MP = 5 };

/* The map of the commutator on one orbit of a pair (o 0: (p, c), 1:
 * (p, m-c)) into t: the place x's sticker goes to t[x]. */
static int var_map(const struct model *M, const struct bvar *v, int o,
		   uint8_t *t)
{
	int lc = (v->a_is_c ? v->mir_a : v->mir_b) ^ o ? L_MQ : L_Q;
	int lp = (v->a_is_c ? v->mir_b : v->mir_a) ? L_MP : L_P;
	int la = v->a_is_c ? lc : lp, lb = v->a_is_c ? lp : lc;
	/* Y: a face, the rows' or the columns' range, or the block from a
	 * face to the end of either range (each also mirrored) */
	int lcm = (v->fm & 1) ^ o ? L_MQ : L_Q; /* the columns' layer */
	int yl[3], ny = 0;
	switch (v->fm) {
	case 0: yl[ny++] = 0; break;
	case 1: yl[ny++] = 6; break;
	case 2: yl[ny++] = L_P; break;
	case 3: yl[ny++] = L_MP; break;
	case 4: case 5: yl[ny++] = lcm; break;
	case 6: yl[ny++] = 0, yl[ny++] = L_P; break;
	case 7: yl[ny++] = 6, yl[ny++] = L_MP; break;
	case 8: yl[ny++] = 0, yl[ny++] = L_P, yl[ny++] = lcm; break;
	default: yl[ny++] = 6, yl[ny++] = L_MP, yl[ny++] = lcm; break;
	}
	int x[3] = {reduce__model_gen(M, v->a, la, v->xa), reduce__model_gen(M, v->b, lb, v->a1),
		    reduce__model_gen(M, v->a, la, 4 - v->xa)};
	int xi[3] = {x[0], reduce__model_gen(M, v->b, lb, 4 - v->a1), x[2]};
	int y[3], yi[3];
	for (int i = 0; i < ny; i++) {
		y[i] = reduce__model_gen(M, v->b, yl[i], v->b1);
		yi[i] = reduce__model_gen(M, v->b, yl[i], 4 - v->b1);
	}
	int seq[12], k = 0;
	for (int part = 0; part < 4; part++) {
		int isy = (part + v->form) % 2, inv = part >= 2;
		if (isy)
			for (int i = 0; i < ny; i++)
				seq[k++] = inv ? yi[i] : y[i];
		else
			for (int i = 0; i < 3; i++)
				seq[k++] = inv ? xi[i] : x[i];
	}
	for (int i = 0; i < k; i++)
		if (seq[i] < 0)
			return -1;
	for (int p = 0; p < NPOS; p++)
		t[p] = (uint8_t)p;
	for (int i = 0; i < k; i++)
		for (int p = 0; p < NPOS; p++)
			t[p] = M->perm[seq[i]][t[p]];
	return 0;
}

static uint32_t var_hash(const uint8_t *t)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < 2 * NPOS; i++)
		h = (h ^ t[i]) * 16777619u;
	return h;
}

/* Every variant, one per distinct pair of maps. */
static int build_vars(struct ctx *x, struct blkw *B)
{
	const struct model *M = &x->w->model[M_OBL];
	uint8_t keys[2 * NPOS];
	memset(B->slot, -1, sizeof B->slot);
	B->nvar = 0;
	struct bvar v;
	memset(&v, 0, sizeof v);
	for (int a = 0; a < 3; a++)
	for (int b = 0; b < 3; b++) {
		if (a == b)
			continue;
		for (int xa = 1; xa <= 3; xa++)
		for (int a1 = 1; a1 <= 3; a1++)
		for (int fm = 0; fm < BLK_YK; fm++)
		for (int b1 = 1; b1 <= 3; b1++)
		for (int form = 0; form < 2; form++)
		for (int ac = 0; ac < 2; ac++)
		for (int ma = 0; ma < 2; ma++)
		for (int mb = 0; mb < 2; mb++) {
			v.a = (uint8_t)a, v.b = (uint8_t)b;
			v.xa = (uint8_t)xa, v.a1 = (uint8_t)a1;
			v.fm = (uint8_t)fm, v.b1 = (uint8_t)b1;
			v.form = (uint8_t)form, v.a_is_c = (uint8_t)ac;
			v.mir_a = (uint8_t)ma, v.mir_b = (uint8_t)mb;
			if (var_map(M, &v, 0, keys) < 0 ||
			    var_map(M, &v, 1, keys + NPOS) < 0)
				return SOLVE_ESTAGE;
			int moved = 0;
			for (int o = 0; o < 2; o++) {
				v.n[o] = 0;
				for (int p = 0; p < NPOS; p++)
					if (keys[o * NPOS + p] != p) {
						v.mv[o][v.n[o]][0] = (uint8_t)p;
						v.mv[o][v.n[o]][1] =
							keys[o * NPOS + p];
						v.n[o]++;
					}
				moved += v.n[o];
			}
			if (!moved)
				continue;
			uint32_t i = var_hash(keys) & (BLK_HASH - 1);
			int dup = 0;
			for (; B->slot[i] >= 0; i = (i + 1) & (BLK_HASH - 1)) {
				const struct bvar *u = &B->v[B->slot[i]];
				if (u->n[0] == v.n[0] && u->n[1] == v.n[1] &&
				    !memcmp(u->mv[0], v.mv[0], 2 * v.n[0]) &&
				    !memcmp(u->mv[1], v.mv[1], 2 * v.n[1])) {
					dup = 1;
					break;
				}
			}
			if (dup)
				continue;
			if (B->nvar >= BLK_MAXV)
				return SOLVE_ESTAGE;
			v.nact = 0;
			for (int o = 0; o < 2; o++)
				for (int k = 0; k < v.n[o]; k++) {
					int f = v.mv[o][k][0], t = v.mv[o][k][1];
					if (B->tgt[f] == B->tgt[t])
						continue;
					v.act[v.nact] = (uint8_t)(o * NPOS + f);
					v.ac[v.nact][0] = B->tgt[t];
					v.ac[v.nact][1] = B->tgt[f];
					v.nact++;
				}
			B->slot[i] = (int16_t)B->nvar;
			B->v[B->nvar++] = v;
		}
	}
	return 0;
}

/* Stickers the variant's maps put on their face less those they take
 * off, on one pair. */
static inline int var_gain(const struct bvar *v, const uint8_t *cur)
{
	int g = 0;
	for (int k = 0; k < v->nact; k++) {
		int col = cur[v->act[k]];
		g += (col == v->ac[k][0]) - (col == v->ac[k][1]);
	}
	return g;
}

/* Moves each contiguous run of columns past the first adds to the
 * commutator: J appears twice in it, I four times, a Y of the columns'
 * range twice. */
static int var_run_moves(const struct bvar *v)
{
	return (v->a_is_c ? 4 : 2) + (v->fm == 4 || v->fm == 5 ? 2 : 0);
}

/* The variant's gain on each pair of rows p1..p2 (B->g) and each row's
 * positive gains, 8 a sticker (B->rowpos); only the columns in cols. */
static void var_gains(struct blkw *B, const struct bvar *v, int p1, int p2,
		      uint64_t cols)
{
	int h = B->h;
	for (int p = p1; p <= p2; p++) {
		for (int c = p + 1; c <= h; c++)
			if (cols >> c & 1)
				B->g[p][c] = (int8_t)var_gain(v, B->cur[p][c][0]);
		int rp = 0;
		for (int c = p + 1; c <= h; c++)
			rp += B->g[p][c] > 0 ? B->g[p][c] : 0;
		B->rowpos[p] = 8 * rp;
	}
}

/* The variant's gains on every pair (var_gains over rows 1 .. h-1 and
 * every column): a pass over curt for each place whose target face the
 * map changes, every entry at once (those with c <= p are never read),
 * built for AVX2 too where the compiler can (REDUCE_CLONES). */
#define BLK_W (BLK_MAXH + 1)
REDUCE_CLONES("avx2") static void gains_add(int8_t *restrict g,
					     const uint8_t *restrict col,
					     int rows, uint8_t a, uint8_t b)
{
	for (int r = 0; r < rows; r++, g += BLK_W, col += BLK_W)
		for (int i = 0; i < BLK_W; i++)
			g[i] = (int8_t)(g[i] + (col[i] == a) - (col[i] == b));
}

static void var_gains_all(struct blkw *B, const struct bvar *v)
{
	int h = B->h;
	memset(B->g, 0, sizeof B->g);
	for (int k = 0; k < v->nact; k++)
		gains_add(B->g[1], B->curt[v->act[k]][1], h - 1, v->ac[k][0],
			  v->ac[k][1]);
	for (int p = 1; p < h; p++) {
		int rp = 0;
		for (int c = p + 1; c <= h; c++)
			rp += B->g[p][c] > 0 ? B->g[p][c] : 0;
		B->rowpos[p] = 8 * rp;
	}
}

/* One column of the columns' scan (below): the best score of a set whose
 * last run ends at this column before the column's own sum is added,
 * from in (the best ending at the column before: the run goes on) or
 * out (the best ending earlier: a new run, pen more) or neither (the
 * first run); *from says which (0, 1, 2). */
static inline int scan_base(int in, int out, int pen, int *from)
{
	if (in >= out - pen && in >= 0)
		return *from = 0, in;
	if (out - pen >= 0)
		return *from = 1, out - pen;
	return *from = 2, 0;
}

/* Pair (p, c)'s places from cur into curt. */
static void pair_to_curt(struct blkw *B, int p, int c)
{
	const uint8_t *cur = B->cur[p][c][0];
	for (int i = 0; i < 2 * NPOS; i++)
		B->curt[i][p][c] = cur[i];
}

/* The columns' scan for one range of rows (column sums col, columns
 * p2+1 .. h, pen a run past the first): the best set (bit c) whose last
 * run ends at upto. in: the best set whose last run ends at c; out: the
 * best non-empty set that ends before c. var_search runs the same scan
 * on the scores alone and asks for the set only of the best. */
static uint64_t cols_set(const int16_t *col, int p2, int h, int pen,
			 int upto)
{
	int in = -(1 << 29), out = -(1 << 29);
	uint64_t inm = 0, outm = 0;
	for (int c = p2 + 1; c <= upto && c <= h; c++) {
		int from, nin = scan_base(in, out, pen, &from) + 8 * col[c];
		uint64_t ninm = (from == 0 ? inm : from == 1 ? outm : 0) |
				1ull << c;
		if (in > out)
			out = in, outm = inm;
		in = nin, inm = ninm;
	}
	return inm;
}

/* The variant's best block now: rows p1..p2 (at most rows of them) and
 * a set of columns past p2, scored 8 a sticker put on its face (less 8
 * a sticker taken off) less thr a move each run of columns past the
 * first adds (thr / 8 a move is what the commutator's 8 moves must gain
 * at least), if it reaches 8 thr (else v->best < 8 thr). The columns
 * are a maximum over runs (a two-state scan: in a run or not). Rows
 * whose positive gains cannot reach the best so far are passed over. */
static void var_search(struct blkw *B, struct bvar *v, int thr, int rows)
{
	int h = B->h, best = 8 * thr - 1, pos = 0;
	int pen = thr * var_run_moves(v);
	const int *rowpos = B->rowpos;
	for (int p = 1; p < h; p++)
		pos += rowpos[p];
	v->best = best;
	if (pos <= best)
		return; /* no block can reach it */
	int16_t col[BLK_MAXH + 1], bcol[BLK_MAXH + 1];
	int bend = -1;
	for (int p1 = 1; p1 < h; p1++) {
		int last = p1 + rows - 1 < h - 1 ? p1 + rows - 1 : h - 1;
		int room = 0;
		for (int p = p1; p <= last; p++)
			room += rowpos[p];
		if (room <= best || rowpos[p1] == 0)
			continue; /* a top row with nothing to gain is dropped */
		memset(col, 0, sizeof col);
		int have = 0;
		for (int p2 = p1; p2 <= last; p2++) {
			const int8_t *gr = B->g[p2];
			for (int c = p2 + 1; c <= h; c++)
				col[c] = (int16_t)(col[c] + gr[c]);
			have += rowpos[p2];
			if (have <= best || rowpos[p2] == 0)
				continue;
			/* the scores alone (cols_set's scan, which gives
			 * the set once a score is the best) */
			int in = -(1 << 29), out = -(1 << 29), end = -1;
			for (int c = p2 + 1; c <= h; c++) {
				int from, nin = scan_base(in, out, pen, &from);
				if (in > out)
					out = in;
				in = nin + 8 * col[c];
				if (in > best)
					best = in, end = c;
			}
			if (end >= 0) {
				v->rows[0] = (uint8_t)p1;
				v->rows[1] = (uint8_t)p2;
				memcpy(bcol, col, sizeof col);
				bend = end;
			}
		}
	}
	if (bend >= 0)
		v->cols = cols_set(bcol, v->rows[1], h, pen, bend);
	v->best = best;
}

static void read_pair(struct ctx *x, int p, int c, uint8_t (*cur)[NPOS])
{
	struct orbit o;
	reduce__orbit_init(&o, &x->w->model[M_OBL], p, c, x->m);
	reduce__read_orbit(x, &o, cur[0]);
	reduce__orbit_init(&o, &x->w->model[M_OBL], p, x->m - c, x->m);
	reduce__read_orbit(x, &o, cur[1]);
}

/* The runs of layers of a set (bit l), mirrored (m - l) if mir: lo,
 * hi of each into r; how many. */
static int set_runs(uint64_t set, int mir, int m, int (*r)[2])
{
	int k = 0;
	for (int l = 0; l < 64; l++) {
		if (!(set >> l & 1))
			continue;
		if (k && r[k - 1][1] == l - 1)
			r[k - 1][1] = l;
		else
			r[k][0] = r[k][1] = l, k++;
	}
	for (int i = 0; mir && i < k; i++) {
		int lo = r[i][0];
		r[i][0] = m - r[i][1], r[i][1] = m - lo;
	}
	return k;
}

/* The variant's commutator on its block, made on the cube: each range a
 * run of block turns about its axis (one move each; turns of one axis
 * commute). */
static int var_emit(struct ctx *x, const struct bvar *v)
{
	int m = x->m;
	uint64_t rows = 0;
	for (int p = v->rows[0]; p <= v->rows[1]; p++)
		rows |= 1ull << p;
	int ra[BLK_MAXH + 1][2], rb[BLK_MAXH + 1][2], ry[BLK_MAXH + 1][2];
	int na = set_runs(v->a_is_c ? v->cols : rows, v->mir_a, m, ra);
	int nb = set_runs(v->a_is_c ? rows : v->cols, v->mir_b, m, rb);
	int ny = 1;
	switch (v->fm) {
	case 0: ry[0][0] = ry[0][1] = 0; break;
	case 1: ry[0][0] = ry[0][1] = m; break;
	case 2: case 3: ny = set_runs(rows, v->fm == 3, m, ry); break;
	default: ny = set_runs(v->cols, v->fm == 5, m, ry); break;
	}
	for (int part = 0; part < 4; part++) {
		int isy = (part + v->form) % 2, inv = part >= 2, rc;
		if (isy) {
			for (int i = 0; i < ny; i++)
				if ((rc = emit_block(x, v->b, ry[i][0], ry[i][1],
						     (inv ? 4 - v->b1 : v->b1) & 3)) < 0)
					return rc;
			continue;
		}
		for (int i = 0; i < na; i++)
			if ((rc = emit_block(x, v->a, ra[i][0], ra[i][1],
					     v->xa)) < 0)
				return rc;
		for (int i = 0; i < nb; i++)
			if ((rc = emit_block(x, v->b, rb[i][0], rb[i][1],
					     (inv ? 4 - v->a1 : v->a1) & 3)) < 0)
				return rc;
		for (int i = 0; i < na; i++)
			if ((rc = emit_block(x, v->a, ra[i][0], ra[i][1],
					     (4 - v->xa) & 3)) < 0)
				return rc;
	}
	return 0;
}

/* The variant's commutator on its best block: the pairs' places moved
 * by its maps, the moves made, the pairs read back. */
static int var_apply(struct ctx *x, struct blkw *B, const struct bvar *v)
{
	for (int p = v->rows[0]; p <= v->rows[1]; p++)
		for (int c = p + 1; c <= B->h; c++) {
			if (!(v->cols >> c & 1))
				continue;
			for (int o = 0; o < 2; o++) {
				uint8_t *cur = B->cur[p][c][o], t[NPOS];
				memcpy(t, cur, NPOS);
				for (int k = 0; k < v->n[o]; k++)
					cur[v->mv[o][k][1]] = t[v->mv[o][k][0]];
			}
			pair_to_curt(B, p, c);
		}
	int rc = var_emit(x, v);
	if (rc < 0)
		return rc;
	for (int p = v->rows[0]; p <= v->rows[1]; p++)
		for (int c = p + 1; c <= B->h; c++) {
			if (!(v->cols >> c & 1))
				continue;
			uint8_t now[2][NPOS];
			read_pair(x, p, c, now);
			if (memcmp(now, B->cur[p][c], sizeof now))
				return SOLVE_ESTAGE;
		}
	return 0;
}

/* ------------------------------------------------------------ slices */

static inline int slc_layer(const struct slc *S, int a, int f, int r, int c)
{
	return S->lk[a][f][0] + S->lk[a][f][1] * r + S->lk[a][f][2] * c;
}

/* The geometry: each face's layers, and the faces a turn cycles (found
 * by turning a small labelled cube). */
static int slc_geometry(struct ctx *x, struct slc *S)
{
	int n = x->n, m = x->m;
	for (int a = 0; a < 3; a++)
		for (int f = 0; f < 6; f++) {
			int p[3][3];
			reduce__where3d(n, f, 0, 0, p[0]);
			reduce__where3d(n, f, 1, 0, p[1]);
			reduce__where3d(n, f, 0, 1, p[2]);
			S->lk[a][f][0] = (int16_t)(m - p[0][a]);
			S->lk[a][f][1] = (int16_t)(p[0][a] - p[1][a]);
			S->lk[a][f][2] = (int16_t)(p[0][a] - p[2][a]);
		}
	cube_t *sim = (cube_t *)(void *)x->w->sim;
	const int sn = 5, sm = sn - 1;
	for (int a = 0; a < 3; a++)
		for (int q = 0; q < 4; q++)
			for (int f = 0; f < 6; f++) {
				S->nf[a][q][f] = -1;
				if (!S->lk[a][f][1] && !S->lk[a][f][2])
					continue; /* the axis goes through f */
				/* sticker 2 of face f's strip in layer 1 */
				int r = 2, c = 2;
				int base = S->lk[a][f][0] ? sm : 0;
				if (S->lk[a][f][1])
					r = (1 - base) / S->lk[a][f][1];
				else
					c = (1 - base) / S->lk[a][f][2];
				cube_init(sim, sn);
				cube__set(sim, f, r, c, LABEL0);
				cube_turn(sim, a, 1, 1, q);
				for (int g = 0; g < 6; g++)
					for (int rr = 0; rr < sn; rr++)
						for (int cc = 0; cc < sn; cc++)
							if (cube_get(sim, g, rr, cc) == LABEL0)
								S->nf[a][q][f] = (int8_t)g;
				if (S->nf[a][q][f] < 0)
					return SOLVE_ESTAGE;
			}
	return 0;
}

/* Add (d = 1) or take away (-1) the center stickers of layers lo..hi of
 * axis a (on the faces it cycles) in the counts. */
static void slc_count(struct ctx *x, struct slc *S, int a, int lo, int hi,
		      int d)
{
	int m = x->m;
	for (int l = lo; l <= hi; l++)
		for (int f = 0; f < 6; f++) {
			const int16_t *k = S->lk[a][f];
			if (!k[1] && !k[2])
				continue;
			for (int j = 1; j < m; j++) {
				int r, c;
				if (k[1])
					r = (l - k[0]) / k[1], c = j;
				else
					c = (l - k[0]) / k[2], r = j;
				int col = cube_get(x->c, f, r, c);
				for (int b = 0; b < 3; b++) {
					if (!S->lk[b][f][1] && !S->lk[b][f][2])
						continue;
					S->cnt[b][slc_layer(S, b, f, r, c)][f][col] +=
						(int16_t)d;
				}
			}
		}
}

/* Stickers a turn of layer l about a puts on their face less those it
 * takes off. */
static inline int slc_gain(const struct ctx *x, const struct slc *S, int a,
			   int l, int q)
{
	int g = 0;
	for (int f = 0; f < 6; f++) {
		int t = S->nf[a][q][f];
		if (t < 0)
			continue;
		g += S->cnt[a][l][f][x->tcol[t]] - S->cnt[a][l][f][x->tcol[f]];
	}
	return g;
}

/* The turn made, the counts kept, and the parity of each wing orbit's
 * slices' quarter turns (par[k]: orbit k; turn_par's bits end at 31). */
static int slc_turn(struct ctx *x, struct slc *S, int a, int lo, int hi,
		    int q, uint8_t *par)
{
	int m = x->m;
	slc_count(x, S, a, lo, hi, -1);
	int rc = emit_block(x, a, lo, hi, q);
	if (rc < 0)
		return rc;
	slc_count(x, S, a, lo, hi, 1);
	for (int l = lo; l <= hi && q % 2; l++)
		if (l > 0 && l < m && 2 * l != m)
			par[l < m - l ? l : m - l] ^= 1;
	return 0;
}

/* The slice phase (past STAGED_MAX_N): inner slices and blocks of them
 * (never the middle slice of odd n, which holds the frame), greedily,
 * the turn that puts the most center stickers on their face, while it
 * puts at least SLC_MIN; then one quarter turn of a slice for each wing
 * orbit left odd. */
static int slice_phase(struct ctx *x, struct slc *S)
{
	int m = x->m, rc, mid = x->n % 2 ? m / 2 : -1;
	if ((rc = slc_geometry(x, S)) < 0)
		return rc;
	memset(S->cnt, 0, sizeof S->cnt);
	for (int f = 0; f < 6; f++)
		for (int r = 1; r < m; r++)
			for (int c = 1; c < m; c++) {
				int col = cube_get(x->c, f, r, c);
				for (int b = 0; b < 3; b++)
					if (S->lk[b][f][1] || S->lk[b][f][2])
						S->cnt[b][slc_layer(S, b, f, r, c)][f][col]++;
			}
	uint8_t par[REDUCE_MAX_N / 2 + 1];
	memset(par, 0, sizeof par);
	for (;;) {
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		int bg = 0, ba = 0, blo = 0, bhi = 0, bq = 0;
		for (int a = 0; a < 3; a++)
			for (int q = 1; q <= 3; q++) {
				int run = 0, start = 1;
				for (int l = 1; l < m; l++) {
					if (l == mid) {
						run = 0;
						continue;
					}
					if (run <= 0)
						run = 0, start = l;
					run += slc_gain(x, S, a, l, q);
					if (run > bg)
						bg = run, ba = a, blo = start, bhi = l,
						bq = q;
				}
			}
		if (bg < SLC_MIN)
			break;
		if ((rc = slc_turn(x, S, ba, blo, bhi, bq, par)) < 0)
			return rc;
	}
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		if (!par[k])
			continue;
		int bg = -(1 << 30), ba = 0, bl = k, bq = 1;
		for (int a = 0; a < 3; a++)
			for (int s = 0; s < 2; s++)
				for (int q = 1; q <= 3; q += 2) {
					int l = s ? m - k : k;
					int g = slc_gain(x, S, a, l, q);
					if (g > bg)
						bg = g, ba = a, bl = l, bq = q;
				}
		if ((rc = slc_turn(x, S, ba, bl, bl, bq, par)) < 0)
			return rc;
		if (par[k])
			return SOLVE_ESTAGE;
	}
	return 0;
}

int reduce__block_centers(struct ctx *x)
{
	struct blkw *B = blkw_of(x);
	int m = x->m, rc;
	if ((rc = slice_phase(x, &B->S)) < 0)
		return rc;
	B->h = (m - 1) / 2;
	if (B->h > BLK_MAXH)
		return SOLVE_ESTAGE;
	if (B->h < 2)
		return 0;
	const struct model *M = &x->w->model[M_OBL];
	for (int i = 0; i < NPOS; i++)
		B->tgt[i] = (uint8_t)x->tcol[M->st[i][0][0]];
	if ((rc = build_vars(x, B)) < 0)
		return rc;
	int h = B->h;
	memset(B->curt, 0, sizeof B->curt);
	for (int p = 1; p < h; p++)
		for (int c = p + 1; c <= h; c++) {
			read_pair(x, p, c, B->cur[p][c]);
			pair_to_curt(B, p, c);
		}
	const int *thr = x->blk_most ? x->plan.blk_thr_most : x->plan.blk_thr;
	int rows = x->plan.blk_rows;
	for (size_t t = 0; thr[t]; t++) {
		for (int i = 0; i < B->nvar; i++) {
			if (poll_now(x))
				return SOLVE_ENOTFOUND;
			struct bvar *v = &B->v[i];
			/* its gains on every pair; after each of its
			 * commutators, on that block's pairs only */
			var_gains_all(B, v);
			for (var_search(B, v, thr[t], rows); v->best >= 8 * thr[t];
			     var_search(B, v, thr[t], rows)) {
				if ((rc = var_apply(x, B, v)) < 0)
					return rc;
				var_gains(B, v, v->rows[0], v->rows[1], v->cols);
			}
		}
	}
	return CY_ALL ? reduce__cycles_all(x, B, reduce__blocks_size(x->n)) : 0;
}
