/* reduce.c — the reduction solver for n×n×n cubes, 4 <= n <= REDUCE_MAX_N
 * (reduce.h gives the stages): the public entry points, the layout of the
 * caller's work buffer, and the driver that runs the stages in order, in
 * several variants for small n, keeping the shortest answer. Each stage
 * lives in a file of its own in this folder (internal.h holds the
 * context they share, each family's header its entry points; plan.c
 * which size and effort runs what).
 *
 * Variants. The stages make different choices for different center
 * thresholds, frames (even n) and for the cube turned as a whole (the
 * moves found for the turned cube are turned back: ρ m ρ⁻¹ is a turn of
 * the same layers about another axis); the answer's length varies by 10%
 * and more between them. Up to VARIANT_MAX_N several variants run in
 * turn (the cube copied afresh for each, the 3×3 searched briefly) and
 * the shortest is kept, its 3×3 then searched on: 20 variants for 4×4,
 * 5 for 5×5, 3 for 6×6 and 7×7 (the winners spread evenly over the
 * variants, a best of N draws, so more help where each is cheap:
 * docs/solvers.md). The caller's poll stopping a later variant keeps the
 * answer in hand.
 *
 * Pure C11, no allocation, no globals but const tables.
 */
#include <string.h>

#include "alg.h"
#include "cubie_internal.h"
#include "solve_internal.h"

#include "centers.h"
#include "centers_methods.h"
#include "edges.h"
#include "orbits.h"
#include "parity.h"
#include "phases.h"
#include "reduced3x3.h"

static const char *const stage_names[REDUCE_STAGES] = {
	"oll_parity", "centers", "edges", "pll_parity", "3x3",
};

const char *reduce_stage_name(int k)
{
	return k >= 0 && k < REDUCE_STAGES ? stage_names[k] : NULL;
}

/* Bytes from the start of the work buffer to the cube and the facelets. */
static size_t cube_offset(void)
{
	return (sizeof(struct rwork) + 63) & ~(size_t)63;
}

/* The most variants any effort runs (what the work buffer is laid out
 * for). */
static int variants_max(int n)
{
	return reduce__plan(n, REDUCE_MAX_EFFORT).variants;
}

/* Bytes from the start of the work buffer to the scratch cube (after the
 * cube and the facelets), and to the other variants' move buffer after
 * it. */
static size_t scratch_offset(int n)
{
	return cube_offset() + ((cube_sizeof(n) + 63) & ~(size_t)63) +
	       ((6u * (size_t)n * (size_t)n + 63) & ~(size_t)63);
}

static size_t alt_offset(int n)
{
	return scratch_offset(n) + ((cube_sizeof(n) + 63) & ~(size_t)63);
}

/* Bytes from the start of the work buffer to the stages' regions
 * (internal.h), after the other variants' moves. */
static size_t regions_offset(int n)
{
	size_t alt = variants_max(n) > 1 ? reduce_max_moves(n) *
						   sizeof(cube_move)
					 : 0;
	return (alt_offset(n) + alt + 63) & ~(size_t)63;
}

static size_t region_bytes(int n, int r)
{
	switch (r) {
	case REDUCE_R_STAGED: return reduce__staged_size(n);
	case REDUCE_R_EDGE_BEAM: return reduce__edge_beam_size(n);
	case REDUCE_R_OBLIQUES: return reduce__obliques_size(n);
	case REDUCE_R_BARS: return reduce__bars_size(n);
	case REDUCE_R_FOUR: return reduce__four_size(n);
	case REDUCE_R_FIVE: return reduce__five_size(n);
	default: return reduce__blocks_size(n);
	}
}

/* Rounded up to 64 bytes, so that every region starts aligned for the
 * structs that ask it (struct barlib). */
static size_t region_size(int n, int r)
{
	return (region_bytes(n, r) + 63) & ~(size_t)63;
}

/* Each region starts where the ones before it end. */
static size_t region_offset(int n, int r)
{
	size_t at = regions_offset(n);
	for (int k = 0; k < r; k++)
		at += region_size(n, k);
	return at;
}

/* A context for size n on work buffer work (its regions laid out), the
 * rest zero. */
static void ctx_init(struct ctx *x, void *work, int n,
		     const reduce_limits *lim)
{
	memset(x, 0, sizeof *x);
	x->w = (struct rwork *)work;
	x->n = n;
	x->m = n - 1;
	x->lim = lim;
	for (int r = 0; r < REDUCE_REGIONS; r++)
		x->region[r] = (unsigned char *)work + region_offset(n, r);
}

/* The shared tables (reduce_stage_tables_build): the staged search's
 * header and kinds, then the bars' macros from here on. */
static size_t shared_bars_at(void)
{
	return (reduce__staged_shared_size() + 63) & ~(size_t)63;
}

/* The shared tables' header (solve_internal.h: magic, format version,
 * byte order, size, checksum), so that a caller may keep them in a file
 * as the two-phase tables are kept. The version is made from the
 * checksum of the tables as this code builds them (the same on every
 * run: every byte of the buffer is set, padding and unused entries
 * zero), so a file an older build wrote, holding other tables, is
 * refused and built again. tests/unit/check_reduce.c (stage_tables_cache)
 * fails when what the tables hold changes until REDUCE_STAGE_TABLES_SUM
 * (centers_methods.h) is set to the new checksum, which changes the version. */
static const char stage_magic[8] = {'c', 'u', 'b', 'e', 'd', 'R', 'S', 'T'};
#define STAGE_VERSION                                                  \
	((uint32_t)(REDUCE_STAGE_TABLES_SUM ^ REDUCE_STAGE_TABLES_SUM >> 32))

size_t reduce_work_size(int n)
{
	if (n < REDUCE_MIN_N || n > REDUCE_MAX_N)
		return 0;
	return region_offset(n, REDUCE_REGIONS) + 64;
}

int reduce_variants(int n)
{
	return n < REDUCE_MIN_N || n > REDUCE_MAX_N ? 0
						    : reduce__plan(n, 1).variants;
}

/* Each greedy 3-cycle step fixes at least one of 24 places; each step
 * of the free center phase (at most four turns) puts at least one more
 * center sticker right; the edge beam's path is shorter than its
 * levels; the multi-orbit wing commutators (past the beam) put at least
 * one more wing right for under 6 moves, at most 10 a wing as made
 * (before merging), inside the wing orbits' second share; then one slice
 * per wing orbit for its parity, six turns for PLL parity, and the
 * 3×3. */
size_t reduce_max_moves(int n)
{
	if (n < REDUCE_MIN_N || n > REDUCE_MAX_N)
		return 0;
	/* what any effort runs: the most (inside out) and the least */
	struct reduce_plan most = reduce__plan(n, EFFORT_INSIDE),
			   least = reduce__plan(n, 1);
	size_t per_orbit = (size_t)NPOS * STEP_MOVES;
	size_t s = (size_t)n - 2, free = 0;
	if (least.free_phase)
		free += 4 * 6 * s * s + (size_t)wing_orbits(n);
	if (least.edge_beam)
		free += EB_ROUNDS * (EB_LEVELS + 1);
	/* each step of the oblique macros puts one more of a pair of
	 * orbits' 48 stickers right, with at most a macro and a set-up */
	size_t om = most.obliques ? (size_t)NPOS * (OM_LEN + 2) : 0;
	/* each step of the bars pairs one more oblique, with one macro, in
	 * each of the rings' bar steps (one for each ring r and cell j,
	 * r < j <= wing_orbits(n)) */
	size_t ki = (size_t)wing_orbits(n);
	size_t bar = most.inside ? ki * (ki - 1) / 2 * BAR_OBL * BAR_LEN : 0;
	/* each slice turn of the slice phase puts at least one more center
	 * sticker on its face, each block commutator (8 moves) at least one
	 * more oblique sticker (the slice phase's parity turns, one per
	 * wing orbit, are in the wing orbits' share) */
	size_t blk = least.blocks ? (size_t)NPOS * (1 + 8) : 0;
	return (size_t)wing_orbits(n) * (1 + 2 * per_orbit) +
	       (size_t)center_orbits(n) * (per_orbit + om + blk) + free + bar +
	       64;
}

static void stage_begin(struct ctx *x, reduce_result *res, int k)
{
	res->stage[k].name = stage_names[k];
	res->stage[k].start = (int)x->count;
	res->stage[k].count = 0;
}

static void stage_end(struct ctx *x, reduce_result *res, int k)
{
	size_t start = (size_t)res->stage[k].start, len = x->count - start;
	/* until nothing changes: a merge can make a cancellation ("R 2R"
	 * is Rw, which "Rw'" then cancels) and a cancellation a merge; each
	 * pass but the last shortens the stage */
	for (;;) {
		size_t s = moves_simplify(x->out + start, len);
		s = moves_merge_blocks(x->out + start, s, x->n);
		if (s == len)
			break;
		len = s;
	}
	x->count = start + len;
	res->stage[k].count = (int)len;
}

/* The frame on even n: of the 24 orientations, the one with most center
 * stickers already on their face (x->frame > 0: the one that many places
 * down that order, ties in a fixed order). */
static void choose_frame(struct ctx *x)
{
	int n = x->n, m = x->m;
	if (n % 2) {
		for (int f = 0; f < 6; f++)
			x->tcol[f] = cube_get(x->c, f, n / 2, n / 2);
	} else {
		long count[6][6] = {{0}};
		for (int f = 0; f < 6; f++)
			for (int r = 1; r < m; r++)
				for (int c = 1; c < m; c++)
					count[f][cube_get(x->c, f, r, c)]++;
		/* the 24 colour maps: the centers of a 3×3 with each face
		 * brought up (x, x2, x', z, z'), then turned by y */
		static const int pre[6][2] = {{0, 0}, {0, 1}, {0, 2},
					      {0, 3}, {2, 1}, {2, 3}};
		_Alignas(64) unsigned char buf[512];
		cube_t *t = (cube_t *)(void *)buf;
		long score[24];
		int col[24][6];
		for (int a = 0; a < 6; a++) {
			cube_init(t, 3);
			cube_turn(t, pre[a][0], 0, 2, pre[a][1]);
			for (int b = 0; b < 4; b++) {
				long sc = 0;
				for (int f = 0; f < 6; f++) {
					col[4 * a + b][f] = cube_get(t, f, 1, 1);
					sc += count[f][col[4 * a + b][f]];
				}
				score[4 * a + b] = sc;
				cube_turn(t, 1, 0, 2, 1);
			}
		}
		/* the frame-th best: pick the best, strike it, again */
		int pick = 0;
		for (int k = 0; k <= x->frame && k < 24; k++) {
			pick = 0;
			for (int i = 1; i < 24; i++)
				if (score[i] > score[pick])
					pick = i;
			if (k < x->frame)
				score[pick] = -1;
		}
		for (int f = 0; f < 6; f++)
			x->tcol[f] = col[pick][f];
	}
	for (int f = 0; f < 6; f++)
		x->face_of[x->tcol[f]] = f;
}

static int all_solved(const struct ctx *x)
{
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < x->n; r++)
			for (int c = 0; c < x->n; c++)
				if (cube_get(x->c, f, r, c) != x->tcol[f])
					return 0;
	return 1;
}

/* Whole-cube rotation k of 24 (0 none): a face brought up by x, x2, x',
 * z or z', then y^(k%4); inverse != 0 undoes it. */
static void rotate(cube_t *c, int k, int inverse)
{
	static const int pre[6][2] = {{0, 0}, {0, 1}, {0, 2},
				      {0, 3}, {2, 1}, {2, 3}};
	int m = c->n - 1, a = k / 4, b = k % 4;
	if (!inverse) {
		cube_turn(c, pre[a][0], 0, m, pre[a][1]);
		cube_turn(c, CUBE_Y, 0, m, b);
	} else {
		cube_turn(c, CUBE_Y, 0, m, (4 - b) & 3);
		cube_turn(c, pre[a][0], 0, m, (4 - pre[a][1]) & 3);
	}
}

/* The moves found for the rotated cube, turned into moves for c itself:
 * with c' = c ρ solved by M', c is solved by ρ M' ρ⁻¹ = the moves ρ m' ρ⁻¹
 * one by one, each a turn of the same layers about another axis, seen
 * from one end or the other (found on a 3×3). The answer is checked on
 * c, and the frame read from where it ends. */
static int unrotate(struct ctx *x, const cube_t *c, reduce_result *r)
{
	_Alignas(64) unsigned char b1[512], b2[512];
	cube_t *t = (cube_t *)(void *)b1, *u = (cube_t *)(void *)b2;
	int to_axis[3], mirror[3], q1[3], m = x->m;
	for (int a = 0; a < 3; a++) {
		cube_init(t, 3);
		rotate(t, x->rot, 0);
		cube_turn(t, a, 0, 0, 1);
		rotate(t, x->rot, 1);
		to_axis[a] = -1;
		for (int b = 0; b < 3 && to_axis[a] < 0; b++)
			for (int l = 0; l <= 2; l += 2)
				for (int q = 1; q <= 3; q += 2) {
					cube_init(u, 3);
					cube_turn(u, b, l, l, q);
					if (cube_equal(t, u)) {
						to_axis[a] = b;
						mirror[a] = l == 2;
						q1[a] = q;
					}
				}
		if (to_axis[a] < 0)
			return SOLVE_ESTAGE;
	}
	for (size_t i = 0; i < x->count; i++) {
		cube_move *mv = &x->out[i];
		int a = mv->axis, lo = mv->lo, hi = mv->hi;
		mv->axis = (uint8_t)to_axis[a];
		mv->qt = (uint8_t)(mv->qt * q1[a] & 3);
		if (mirror[a]) {
			mv->lo = (uint16_t)(m - hi);
			mv->hi = (uint16_t)(m - lo);
		}
	}
	cube_copy(x->c, c);
	cube__apply_trusted(x->c, x->out, x->count);
	char centers[6];
	for (int f = 0; f < 6; f++) {
		x->tcol[f] = cube_get(x->c, f, 0, 0);
		x->face_of[x->tcol[f]] = f;
		centers[f] = cube_face_letters[x->tcol[f]];
	}
	if (!all_solved(x))
		return SOLVE_ESTAGE;
	int rot = cubie__rotation_of_centers(centers);
	if (rot < 0)
		return SOLVE_ESTAGE;
	cubie__orientation(rot, &r->orient);
	return 0;
}

/* Even n whose voted edge set needs the PLL parity: the edges paired
 * against alt (no parity) on trial, then against ecol (the parity's
 * moves added) for good; if alt's was shorter, the cube goes back (x->
 * scratch holds it meanwhile), ecol becomes alt and is paired again.
 * Where the plan says (edges_alt). */
static int pair_or_alt(struct ctx *x, const int8_t *e_of3,
		       uint8_t ecol[12][2], uint8_t alt[12][2])
{
	size_t c0 = x->count, la = SIZE_MAX;
	cube_copy(x->scratch, x->c);
	int rc = reduce__pair_all(x, e_of3, alt);
	if (rc == 0)
		la = x->count - c0;
	else if (rc != CUBE_ESPACE)
		return rc;
	cube_copy(x->c, x->scratch);
	x->count = c0;
	if ((rc = reduce__pair_all(x, e_of3, ecol)) < 0 && rc != CUBE_ESPACE)
		return rc;
	if (rc == 0 && x->count - c0 + REDUCE_PLL_MOVES <= la)
		return 0;
	if (la == SIZE_MAX)
		return rc; /* neither fits in the space left */
	cube_copy(x->c, x->scratch);
	x->count = c0;
	memcpy(ecol, alt, 12 * sizeof *alt);
	return reduce__pair_all(x, e_of3, ecol);
}

/* The reduced cube's parities after the edges: whether it needs the PLL
 * parity, or SOLVE_ESTAGE if it is no 3×3 (a flip, a piece twice). */
static int needs_pll(struct ctx *x, uint8_t ecol[12][2])
{
	char s3[54];
	int cpar, epar, flip;
	reduce__reduced3(x, ecol, s3);
	if (reduce__parities3(s3, &cpar, &epar, &flip) < 0 || flip)
		return SOLVE_ESTAGE;
	return cpar != epar;
}

/* The edge beam's endings near its best, each finished on trial (the
 * PLL parity if it needs it, the 3×3 with one poll's budget); the one
 * whose finish is shortest is taken. The 3×3 is a third of a small
 * cube's answer and its length moves by a few moves from one edge
 * state to the next: docs/solvers.md, "Edges". */
static int best_ending(struct ctx *x, const void *tables)
{
	int ne = reduce__beam_ends(x), best = 0, rc;
	if (ne > x->ends)
		ne = x->ends;
	if (ne < 2)
		return 0;
	size_t bl = SIZE_MAX;
	long polls = x->polls;
	x->polls = 1;
	for (int k = 0; k < ne; k++) {
		if ((rc = reduce__beam_take(x, k)) == 0) {
			uint8_t ecol[12][2];
			reduce__read_ecol(x, ecol);
			rc = needs_pll(x, ecol);
			if (rc == 1)
				rc = reduce__stage_pll(x, 0);
			if (rc == 0)
				rc = reduce__stage_3x3(x, tables);
		}
		if (rc == CUBE_ESPACE)
			continue; /* longer than the space left */
		if (rc < 0) {
			x->polls = polls;
			return rc;
		}
		if (x->count < bl)
			bl = x->count, best = k;
	}
	x->polls = polls;
	return reduce__beam_take(x, best);
}

/* The PLL parity in its versions (as many as the endings tried), each
 * finished on trial by the 3×3 with one poll's budget; the version whose
 * finish is shortest is taken. */
static int best_pll(struct ctx *x, const void *tables)
{
	size_t c0 = x->count, bl = SIZE_MAX;
	int best = 0, rc;
	long polls = x->polls;
	cube_copy(x->scratch, x->c);
	x->polls = 1;
	for (int v = 0; v < REDUCE_PLL_VERSIONS && v < x->ends; v++) {
		if ((rc = reduce__stage_pll(x, v)) == 0)
			rc = reduce__stage_3x3(x, tables);
		if (rc < 0 && rc != CUBE_ESPACE) {
			x->polls = polls;
			return rc;
		}
		if (rc == 0 && x->count < bl)
			bl = x->count, best = v;
		cube_copy(x->c, x->scratch);
		x->count = c0;
	}
	x->polls = polls;
	return reduce__stage_pll(x, best);
}

/* A variant's start: a fresh copy of c (turned by x->rot), no moves, its
 * frame chosen and named in r->orient. */
static int variant_begin(struct ctx *x, const cube_t *c, reduce_result *r)
{
	cube_copy(x->c, c);
	x->count = 0;
	x->bars_broken = 0;
	x->bar_twins = 0;
	x->wing_shared = 0;
	x->eased = 0;
	memset(r, 0, sizeof *r);
	rotate(x->c, x->rot, 0);
	choose_frame(x);
	char centers[6];
	for (int f = 0; f < 6; f++)
		centers[f] = cube_face_letters[x->tcol[f]];
	int rot = cubie__rotation_of_centers(centers);
	if (rot < 0)
		return SOLVE_ESTAGE;
	cubie__orientation(rot, &r->orient);
	return 0;
}

/* One run of the stages on a fresh copy of c, into x->out. Returns the
 * count or an error. */
static int solve_variant(struct ctx *x, const cube_t *c, const void *tables,
			 const int8_t *e_of3, reduce_result *r)
{
	int n = x->n;
	int rc;
	if ((rc = variant_begin(x, c, r)) < 0)
		return rc;
	reduce__ease(x);
	stage_begin(x, r, REDUCE_OLL_PARITY);
	if ((rc = reduce__stage_oll(x, e_of3, r)) < 0)
		return rc;
	stage_end(x, r, REDUCE_OLL_PARITY);

	stage_begin(x, r, REDUCE_CENTERS);
	if ((rc = reduce__stage_centers(x)) < 0)
		return rc;
	r->bar_steps_short = x->bars_broken;
	r->bar_twin_macros = x->bar_twins;
	if (x->split[0] + x->split[1] + x->split[2] + x->split[3] > 0) {
		/* staged: each step already simplified on its own, and kept
		 * apart so that center_steps says where each ends */
		r->stage[REDUCE_CENTERS].count =
			(int)x->count - r->stage[REDUCE_CENTERS].start;
		memcpy(r->center_steps, x->split, sizeof x->split);
	} else {
		stage_end(x, r, REDUCE_CENTERS);
	}

	reduce__ease(x);
	stage_begin(x, r, REDUCE_EDGES);
	if (x->plan.edge_beam && ((rc = reduce__beam_edges(x)) < 0 ||
				  (rc = best_ending(x, tables)) < 0))
		return rc;
	if (x->plan.edge_halves && (rc = reduce__edge_halves(x)) < 0)
		return rc;
	uint8_t ecol[12][2], alt[12][2];
	if (n % 2)
		reduce__read_ecol(x, ecol);
	if (n % 2 == 0 && reduce__choose_edges(x, e_of3, ecol, alt) &&
	    x->plan.edges_alt)
		rc = pair_or_alt(x, e_of3, ecol, alt);
	else
		rc = reduce__pair_all(x, e_of3, ecol);
	if (rc < 0)
		return rc;
	r->wing_orbits_shared = x->wing_shared;
	stage_end(x, r, REDUCE_EDGES);

	stage_begin(x, r, REDUCE_PLL_PARITY);
	if ((rc = needs_pll(x, ecol)) < 0)
		return rc;
	if (rc) {
		r->pll_parity = 1;
		if ((rc = best_pll(x, tables)) < 0)
			return rc;
	}
	stage_end(x, r, REDUCE_PLL_PARITY);

	stage_begin(x, r, REDUCE_3X3);
	if ((rc = reduce__stage_3x3(x, tables)) < 0)
		return rc;
	stage_end(x, r, REDUCE_3X3);

	if (!all_solved(x))
		return SOLVE_ESTAGE;
	if (x->rot && (rc = unrotate(x, c, r)) < 0)
		return rc;
	r->count = (int)x->count;
	return r->count;
}

/* solve_four's return for a frame not tried (not an error of the API) */
#define FOUR_SKIP (-999)

/* A 4×4 frame's class (0 … 35): the colour pair it puts on the U/D
 * axis. The eight frames of a class (turned about U/D, or upside down,
 * from each other) set the phases one problem seen from another side,
 * since each phase's moves and goal look the same from every side that
 * keeps U/D on its axis: the same lengths, the same nodes. So a class
 * that ran out of its budget once is not tried again. */
static int four_class(const struct ctx *x)
{
	int u = x->tcol[CUBE_U], d = x->tcol[CUBE_D];
	return u < d ? u * 6 + d : d * 6 + u;
}

/* A run of the 4×4's or the 5×5's phases begun in frame v, its answer
 * into out (cap moves): x's fields for it set. */
static void phases_begin(struct ctx *x, int v, cube_move *out, size_t cap)
{
	x->frame = v;
	x->rot = 0;
	x->polls = x->plan.polls;
	x->free3 = 1;
	x->out = out;
	x->cap = cap;
}

/* 4×4 by three phases (four.c) on a fresh copy of c in frame x->frame,
 * then the 3×3 stage. The phases' moves are reported as the stages
 * "centers" (phases 1 and 2) and "edges" (phase 3, which also finishes
 * the centers); no parity stage is needed. SOLVE_ESTAGE when a phase
 * ran out of its budget. */
static int solve_four(struct ctx *x, const cube_t *c, const void *tables,
		      const void *four, reduce_result *r)
{
	int split[3] = {0, 0, 0}, rc;
	if ((rc = variant_begin(x, c, r)) < 0) /* x->rot is 0 */
		return rc;
	int cls = four_class(x);
	if (x->four_failed >> cls & 1)
		return FOUR_SKIP;
	stage_begin(x, r, REDUCE_OLL_PARITY);
	stage_end(x, r, REDUCE_OLL_PARITY);
	stage_begin(x, r, REDUCE_CENTERS);
	if ((rc = reduce__four_phases(x, four, split)) < 0) {
		if (rc == SOLVE_ESTAGE && !x->hurried)
			x->four_failed |= 1ull << cls;
		return rc;
	}
	/* the phases' moves as two stages, each merged as every stage is
	 * ("U Uw'" where one phase ends and the next begins is one turn) */
	size_t start = (size_t)r->stage[REDUCE_CENTERS].start;
	size_t nc = (size_t)(split[0] + split[1]), ne = x->count - start - nc;
	cube_move *m = x->out + start;
	x->count = start + nc;
	stage_end(x, r, REDUCE_CENTERS);
	memmove(x->out + x->count, m + nc, ne * sizeof *m);
	stage_begin(x, r, REDUCE_EDGES);
	x->count += ne;
	stage_end(x, r, REDUCE_EDGES);
	stage_begin(x, r, REDUCE_PLL_PARITY);
	stage_end(x, r, REDUCE_PLL_PARITY);
	stage_begin(x, r, REDUCE_3X3);
	if ((rc = reduce__stage_3x3(x, tables)) < 0)
		return rc;
	stage_end(x, r, REDUCE_3X3);
	if (!all_solved(x))
		return SOLVE_ESTAGE;
	r->count = (int)x->count;
	return r->count;
}

/* 5×5 by five phases (five.c): reduction v of those reduce__five_reduce
 * kept, on a fresh copy of c, then the 3×3 stage. Phases 1 and 2 are
 * reported as the stage "centers", phases 3 to 5 (which finish the
 * centres while they pair the edges) as "edges"; no parity stage. */
static int solve_five(struct ctx *x, const cube_t *c, const void *tables,
		      const void *five, int v, reduce_result *r)
{
	int rc;
	if ((rc = variant_begin(x, c, r)) < 0)
		return rc;
	stage_begin(x, r, REDUCE_OLL_PARITY);
	stage_end(x, r, REDUCE_OLL_PARITY);
	/* each stage merged as every stage is ("U Uw'" where one phase
	 * ends and the next begins is one turn): the phases' sets were
	 * ranked by those merged lengths */
	stage_begin(x, r, REDUCE_CENTERS);
	if ((rc = reduce__five_emit(x, five, v, 1, 2)) < 0)
		return rc;
	stage_end(x, r, REDUCE_CENTERS);
	stage_begin(x, r, REDUCE_EDGES);
	if ((rc = reduce__five_emit(x, five, v, 3, 5)) < 0)
		return rc;
	stage_end(x, r, REDUCE_EDGES);
	stage_begin(x, r, REDUCE_PLL_PARITY);
	stage_end(x, r, REDUCE_PLL_PARITY);
	stage_begin(x, r, REDUCE_3X3);
	if ((rc = reduce__stage_3x3(x, tables)) < 0)
		return rc;
	stage_end(x, r, REDUCE_3X3);
	if (!all_solved(x))
		return SOLVE_ESTAGE;
	r->count = (int)x->count;
	return r->count;
}

/* An anytime solve (reduce_limits.stop): the caller's limits with poll
 * and hurry behind these, which ask only stop until the solve holds an
 * answer (*nbest >= 0), then the caller's poll. */
struct anytime {
	const reduce_limits *user;
	const int *nbest;
};

static int anytime_poll(void *ctx, uint64_t done, uint64_t total)
{
	const struct anytime *a = ctx;
	if (a->user->stop(a->user->ctx))
		return 1;
	return *a->nbest >= 0 && a->user->poll &&
	       a->user->poll(a->user->ctx, done, total);
}

static int anytime_hurry(void *ctx)
{
	const struct anytime *a = ctx;
	return a->user->hurry(a->user->ctx);
}

/* One solve as its steps pass it on: the context, the caller's buffers,
 * and the answer in hand. */
struct solve_run {
	struct ctx x;
	const cube_t *c;
	const void *tables;
	const reduce_limits *lim; /* the caller's, or own (anytime) */
	struct reduce_plan plan;  /* the solve's: its size and effort */
	cube_move *out, *alt;     /* the answer; the later variants' moves */
	size_t cap, alt_cap;
	int8_t e_of3[54];         /* 3×3 facelet → edge sticker, or -1 */
	int passes;               /* variants and passes run (solve_passes) */
	int eased;                /* the caller's hurry eased a pass */
	/* the answer in hand: its length (-1 while there is none), its
	 * stages and the frame it ends in */
	int nbest;
	reduce_result best;
	int best_tcol[6];
	/* an anytime solve's limits (reduce_limits.stop) */
	reduce_limits own;
	struct anytime at;
};

/* The solve's start: its context on the work buffer, the plan, the
 * shared tables' header, the cube checked (legal as a cube, then its
 * wings), the models built. Returns 0 or an error. */
static int solve_open(struct solve_run *s, const void *tables,
		      const cube_t *c, const reduce_limits *lim, void *work,
		      cube_move *out, size_t cap)
{
	int n = c->n;
	s->c = c;
	s->tables = tables;
	s->out = out;
	s->cap = cap;
	s->nbest = -1;
	s->passes = 0;
	s->eased = 0;
	s->at = (struct anytime){lim, &s->nbest};
	if (lim && lim->stop) {
		s->own = *lim;
		s->own.poll = anytime_poll;
		s->own.hurry = lim->hurry ? anytime_hurry : NULL;
		s->own.ctx = &s->at;
		lim = &s->own;
	}
	s->lim = lim;
	struct ctx *x = &s->x;
	ctx_init(x, work, n, lim);
	x->c = (cube_t *)(void *)((unsigned char *)work + cube_offset());
	x->scratch = (cube_t *)(void *)((unsigned char *)work +
					scratch_offset(n));
	char *fl = (char *)x->c + ((cube_sizeof(n) + 63) & ~(size_t)63);
	x->out = out;
	x->cap = cap;
	if (lim && (lim->effort < 0 || lim->effort > REDUCE_MAX_EFFORT))
		return CUBE_EINVAL;
	/* the solve's plan; each pass runs on its own (solve_passes) */
	s->plan = reduce__plan(n, lim && lim->effort > 1 ? lim->effort : 1);
	x->plan = s->plan;
	if (lim && lim->stage_tables) {
		/* the header only (the whole checksum is for a file read
		 * back: reduce_stage_tables_check) */
		if (!solve__header_ok((const unsigned char *)lim->stage_tables,
				      reduce_stage_tables_size(), stage_magic,
				      STAGE_VERSION))
			return SOLVE_ETABLES;
		x->shared_bars =
			(const unsigned char *)lim->stage_tables + shared_bars_at();
	}

	/* legal? the cube's own checks, then the wings */
	size_t len = 6u * (size_t)n * (size_t)n;
	cube_to_facelets(c, fl);
	cube_problem pr[1];
	cube_validation_result vr;
	if (cube_validate(fl, len, pr, 1, &vr) != 0)
		return CUBE_EINVALID;
	cube_copy(x->c, c);
	/* the regions of what any pass may run */
	struct reduce_plan most = reduce__plan(n, EFFORT_INSIDE);
	if (most.staged)
		reduce__staged_reset(x);
	if (most.obliques)
		reduce__obliques_reset(x);
	if (most.inside)
		reduce__bars_reset(x);
	for (int id = 0; id < M_COUNT; id++) {
		if (reduce__model_build(&x->w->model[id], id,
				(cube_t *)(void *)x->w->sim, x->w->queue) < 0)
			return SOLVE_ESTAGE;
	}
	if (!reduce__wings_legal(x))
		return CUBE_EINVALID;

	memset(s->e_of3, -1, sizeof s->e_of3);
	for (int e = 0; e < 12; e++)
		for (int k = 0; k < 2; k++)
			s->e_of3[cubie__edge_facelet[e][k]] = (int8_t)(2 * e + k);
	s->alt = (cube_move *)(void *)((unsigned char *)work + alt_offset(n));
	s->alt_cap = reduce_max_moves(n) < cap ? reduce_max_moves(n) : cap;
	return 0;
}

/* Answer k of variant v (its stages in r) kept if it is the first or
 * shorter than the one in hand; a later variant's moves come from alt. */
static void keep_if_shorter(struct solve_run *s, int k, const reduce_result *r)
{
	if (s->nbest >= 0 && k >= s->nbest)
		return;
	if (s->x.out == s->alt)
		memcpy(s->out, s->alt, (size_t)k * sizeof *s->out);
	s->nbest = k;
	s->best = *r;
	memcpy(s->best_tcol, s->x.tcol, sizeof s->best_tcol);
}

/* 4×4 and 5×5 with their phase tables: 1 when they gave the answer, 0
 * when the stage-by-stage path is to solve (no tables, or none of their
 * runs gave an answer: a phase over its budget, or hurried by the caller
 * before it had any), or an error.
 * 4×4: several frames, the shortest kept; one that ran out of its budget
 * is replaced by the next frame of another class (up to 8 tried in all),
 * and one the caller hurried ends them. 5×5: the phases once, then the
 * 3×3 stage on each reduction they kept, the shortest whole kept. */
static int solve_by_phases(struct solve_run *s)
{
	struct ctx *x = &s->x;
	const reduce_limits *lim = s->lim;
	int n = x->n;
	reduce_result r;
	const void *four = n == 4 && lim ? lim->four_tables : NULL;
	if (four && !reduce__four_tables_ok(four))
		return SOLVE_ETABLES;
	const void *five = n == 5 && lim ? lim->five_tables : NULL;
	if (five && !reduce__five_tables_ok(five))
		return SOLVE_ETABLES;
	if (!four && !five)
		return 0;
	int nvar = four ? s->plan.four_frames : 0;
	if (five) {
		x->frame = 0;
		x->rot = 0;
		int rc = variant_begin(x, s->c, &r);
		nvar = rc < 0 ? rc : reduce__five_reduce(x, five);
		if (nvar == SOLVE_ENOTFOUND)
			return nvar;
	}
	for (int v = 0, tried = 0; v < nvar && v < 24 && tried < 8; v++) {
		cube_move *o = v == 0 || s->nbest < 0 ? s->out : s->alt;
		phases_begin(x, four ? v : 0, o, o == s->out ? s->cap : s->alt_cap);
		int k = four ? solve_four(x, s->c, s->tables, four, &r)
			     : solve_five(x, s->c, s->tables, five, v, &r);
		if (k == FOUR_SKIP) {
			nvar++; /* a class that ran out: the next */
			continue;
		}
		tried++;
		if (k == SOLVE_ESTAGE && x->hurried)
			break; /* hurried: the answer in hand, or none */
		if (k == SOLVE_ESTAGE) {
			nvar += four != NULL;
			continue;
		}
		if (k == CUBE_ESPACE && s->nbest >= 0)
			continue;
		if (k == SOLVE_ENOTFOUND && s->nbest >= 0)
			break;
		if (k < 0)
			return k;
		keep_if_shorter(s, k, &r);
	}
	if (four && s->nbest < 0 && x->four_failed && !x->hurried) {
		/* every class ran out: each once more, phase 1 one move
		 * longer (its answers' phase 2 is often much shorter: the
		 * server's seed 116, 40 moves where the stage-by-stage
		 * reduction takes 55) */
		x->four_p1x = 1;
		x->four_failed = 0;
		for (int v = 0; v < 24 && s->nbest < 0 && !x->hurried; v++) {
			phases_begin(x, v, s->out, s->cap);
			int k = solve_four(x, s->c, s->tables, four, &r);
			if (k == FOUR_SKIP || k == SOLVE_ESTAGE)
				continue;
			if (k < 0)
				return k;
			keep_if_shorter(s, k, &r);
		}
	}
	return s->nbest >= 0;
}

/* Pass v's settings (of passes): its plan (the effort it runs at), its
 * variant's threshold, frame and turn, and what the variant takes from
 * its plan (reduce__ease leaves these). */
static void pass_begin(struct solve_run *s, int v, int effort, int variant,
		       int passes)
{
	struct ctx *x = &s->x;
	x->plan = reduce__plan(x->n, effort);
	struct reduce_variant var = reduce__variant(variant);
	x->c_num = var.c_num, x->c_den = var.c_den;
	x->frame = var.frame;
	x->rot = var.rot;
	x->om_evals = 0;
	/* many variants: each 3×3 searched briefly, the winner's on after */
	x->polls = passes > 1 ? 1 : x->plan.polls;
	x->free3 = x->plan.free3;
	x->ends = x->plan.ends;
	x->blk_most = v == 1 && x->plan.blk_thr_most != NULL;
	x->out = v == 0 ? s->out : s->alt;
	x->cap = v == 0 ? s->cap : s->alt_cap;
	x->answered = s->nbest >= 0;
}

/* The stage-by-stage reduction: the plan's variants, each a run of the
 * stages on a fresh copy of the cube, and the passes effort 2 and 3 add
 * past 33×33; the shortest answer kept. Returns 0 or an error (a later
 * pass that fails keeps the answer in hand). */
static int solve_passes(struct solve_run *s)
{
	struct ctx *x = &s->x;
	const reduce_limits *lim = s->lim;
	int n = x->n, effort = s->plan.effort, nv = s->plan.variants;
	int inside_v = -1, inside_e = EFFORT_INSIDE, dflt_v = -1;
	reduce_result r;
	/* effort 3 past STAGED_MORE_MAX_N: after the block commutators'
	 * two passes, one inside out when the caller's budget holds it
	 * (reduce_limits.budget_ms), in the first variant's frame */
	if (s->plan.inside_pass && lim &&
	    (lim->budget_ms == 0 ||
	     (uint64_t)lim->budget_ms * 1000 >=
		     (uint64_t)REDUCE_INSIDE_MS_N2 * (uint64_t)(n * n)))
		inside_v = nv++;
	/* effort 2 and 3 past STAGED_MAX_N up to their inside-out limit: the
	 * centers inside out take seconds (72×72 5-14 s here, by the
	 * machine's day) where the default's block commutators take a
	 * fraction of one. That pass alone outran the server's 10 s on a
	 * slow day and left no answer (422) where the default gives one:
	 * so first the default's pass, its answer in hand, then the
	 * inside-out pass in the same frame, which a deadline may cut
	 * short (the answer in hand kept, as past 72 above). */
	if (s->plan.default_first) {
		dflt_v = 0;
		inside_v = 1;
		inside_e = effort;
	}
	s->passes = nv;
	for (int v = 0; v < nv && !s->eased; v++) {
		pass_begin(s, v,
			   v == inside_v ? inside_e : v == dflt_v ? 1 : effort,
			   v == inside_v ? 0 : v, nv);
		int k = solve_variant(x, s->c, s->tables, s->e_of3, &r);
		/* hurried (reduce__ease): this variant ran on at the
		 * default effort, and no other starts */
		s->eased |= x->eased;
		if (k == CUBE_ESPACE && v > 0)
			continue; /* longer than the answer in hand */
		if (k == SOLVE_ENOTFOUND && v > 0)
			break; /* the caller's poll: keep what is in hand */
		if (k == SOLVE_ESTAGE && v == inside_v)
			continue; /* the extra pass failing a stage (none
				   * seen; the slow tests would show one)
				   * costs the caller the shorter answer,
				   * not the one in hand */
		if (k < 0)
			return k;
		keep_if_shorter(s, k, &r);
	}
	return 0;
}

/* Where several variants or passes ran: the winner's 3×3 searched on
 * with the full budget, the same search continued, so never longer
 * (eased: as long as the default's, then the same answer as the
 * default's where the first ask eased the first variant). Returns 0 or
 * an error; the caller's poll stopping it keeps the answer in hand. */
static int search_on(struct solve_run *s)
{
	struct ctx *x = &s->x;
	x->plan = reduce__plan(x->n, s->eased ? 1 : s->plan.effort);
	if (s->passes <= 1)
		return 0;
	int start = s->best.stage[REDUCE_3X3].start;
	cube_copy(x->c, s->c);
	cube__apply_trusted(x->c, s->out, (size_t)start);
	x->out = s->out;
	x->cap = s->cap;
	x->count = (size_t)start;
	x->polls = x->plan.polls;
	/* the free turns wherever the 3×3 is searched on alone, but not
	 * past the block commutators (plan.c, FREE3_VARIANTS) */
	x->free3 = !x->plan.blocks;
	for (int f = 0; f < 6; f++) {
		x->tcol[f] = s->best_tcol[f];
		x->face_of[s->best_tcol[f]] = f;
	}
	int rc = reduce__stage_3x3(x, s->tables);
	if (rc == SOLVE_ENOTFOUND)
		return 0; /* stopped by the caller's poll before it found
			   * anything: out still holds the short search's
			   * answer */
	if (rc < 0)
		return rc;
	stage_end(x, &s->best, REDUCE_3X3);
	if (!all_solved(x))
		return SOLVE_ESTAGE;
	s->best.count = (int)x->count;
	s->nbest = s->best.count;
	return 0;
}

int reduce_solve(const void *tables, const cube_t *c, const reduce_limits *lim,
		 void *work, size_t work_size, cube_move *out, size_t cap,
		 reduce_result *res)
{
	if (!tables || !c || !work || !out || !res)
		return CUBE_EINVAL;
	int n = c->n;
	if (n < REDUCE_MIN_N || n > REDUCE_MAX_N)
		return CUBE_ESIZE;
	if (work_size < reduce_work_size(n))
		return CUBE_EINVAL;
	struct solve_run s;
	int rc;
	if ((rc = solve_open(&s, tables, c, lim, work, out, cap)) < 0)
		return rc;
	if ((rc = solve_by_phases(&s)) == 0 &&
	    (rc = solve_passes(&s)) == 0)
		rc = search_on(&s);
	if (rc < 0)
		return rc;
	*res = s.best;
	return s.nbest;
}

size_t reduce_stage_tables_size(void)
{
	return shared_bars_at() + reduce__bar_macs_size();
}

size_t reduce_stage_tables_work_size(void)
{
	size_t w = 0;
	for (int n = 4; n <= 7; n++)
		if (reduce_work_size(n) > w)
			w = reduce_work_size(n);
	return w;
}

int reduce_stage_tables_check(const void *tables, size_t size)
{
	return solve__check(tables, size, reduce_stage_tables_size(),
			    stage_magic, STAGE_VERSION);
}

int reduce_stage_tables_build(void *tables, size_t size, void *work,
			      size_t work_size, const reduce_limits *lim)
{
	if (!tables || !work || size < reduce_stage_tables_size() ||
	    work_size < reduce_stage_tables_work_size())
		return CUBE_EINVAL;
	/* every byte set, the header zero (not good) until sealed */
	memset(tables, 0, reduce_stage_tables_size());
	reduce_limits own = {.poll = lim ? lim->poll : NULL,
			     .ctx = lim ? lim->ctx : NULL};
	struct ctx x;
	int rc, n;
	int parts = 1; /* the kinds, then the bars' macros */
	while (reduce__staged_kind_size(parts - 1) > 0)
		parts++;
	for (int k = 0; (n = reduce__staged_kind_size(k)) > 0; k++) {
		ctx_init(&x, work, n, &own);
		/* the parts done so far, for a caller's progress */
		if (own.poll && own.poll(own.ctx, (uint64_t)k, (uint64_t)parts))
			return SOLVE_ENOTFOUND;
		if ((rc = reduce__staged_build_kind(&x, tables, k)) < 0)
			return rc;
	}
	/* the bars' macros, with a 7×7's work buffer for scratch */
	if (own.poll &&
	    own.poll(own.ctx, (uint64_t)parts - 1, (uint64_t)parts))
		return SOLVE_ENOTFOUND;
	ctx_init(&x, work, 7, NULL);
	rc = reduce__bar_build((unsigned char *)tables + shared_bars_at(), &x);
	if (rc < 0)
		return rc;
	solve__seal(tables, reduce_stage_tables_size(), stage_magic,
		    STAGE_VERSION);
	return 0;
}
