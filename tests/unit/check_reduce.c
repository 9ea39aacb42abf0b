/* check_reduce.c — the reduction solver (core/reduce/): every answer
 * checked by applying it twice, once as moves and once as the printed
 * text read back by the notation parser, and its stages laid end to end.
 *
 * make test (case "reduce", about 20 s of CPU here): the parities forced
 * on purpose (a flipped dedge = OLL parity, two swapped dedges = PLL
 * parity, both, on 4×4 and 6×6; a lone flipped wing pair on 5×5 and
 * 7×7); illegal states refused with the reason validation gives; poll
 * (early: an error; late, among the variants: an answer), a small buffer
 * and bad arguments; the staged-center tables shared across calls (the
 * same answers as without, 4×4 and 5×5); the staged centers' steps each
 * reaching its goal; the edges stage's goal (centers kept, every edge
 * paired); the answers to seeded states of every size 4 to 9, move for
 * move, against a golden file.
 *
 * make test-slow (case "reduce_slow", tag "slow"): random states of every
 * size from 4 to 12, and 17 and 33; the golden answers of 10×10 to 12×12
 * and the larger sizes (to 100×100); the shared tables on 6×6 to 9×9;
 * more edges-stage states; the effort levels; a guard on the mean length
 * of 4×4, 5×5, 6×6, 7×7 and 9×9 answers, their centers and their edges,
 * and of 48×48, 64×64 and 128×128 answers and their centers;
 * the parity cases (OLL, a lone wing pair, PLL, both, each plain and
 * scrambled) on every size 4 to 13 and 16, 17, 20, 33, 48 and 128.
 *
 * The two-phase tables are read from $CUBED_TABLES/cubed-tables-3x3.bin
 * when a server has cached them there, else built (about 5 s), once, in
 * an unchecked fixture in the runner's process. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "cube_internal.h"
#include "cubie.h"
#include "reduce.h"
#include "solve.h"
#include "solve_internal.h"
#include "suites.h"
#include "reduce/centers_methods.h" /* REDUCE_STAGE_TABLES_SUM */
#include "reduce/plan.h"    /* reduce__plan */
#include "reduce/edges_beam.h" /* EB_WMAX */

#include "cube_helpers.h"
#include "golden.h"
#include "require.h"
#include "solver_tables.h"

/* The guard's bounds: the means measured when it was last moved (4×4
 * 56.8, 5×5 95.5, 7×7 278.5 with the edge beam; the centers stage 18.0,
 * 33.5 and 179.3 when the staged search came, 17.5, 32.4, 176.0 later;
 * the edges stage 20.0, 43.6, 82.5; 6×6 and 9×9 with every ring staged
 * 212.6 and 741.0, centers 127.3 and 430.8 (about 172 and 580 before),
 * edges 64.8 and 290.1; 6×6, 7×7 and 9×9 with the oblique macros
 * 198.8, 260.0 and 688.9, centers 115.3, 160.6 and 385.9, where they
 * were 211.9, 273.5 and 729.1, centers 127.6, about 176 and 426; 7×7
 * with rings 1 and 2 ending together 255.1, centers 152.8, while 6×6
 * went 198.8 -> 202.3 and centers 115.3 -> 117.0 on these 8 states,
 * against 117.3 -> 112.8 on 40 others, so its bounds stay; 7×7 with
 * the oblique beam and 32 edge states a level 249.4, centers 149.9,
 * edges 80.0, 6×6 201.1, centers 115.8; 7×7 reduced to 5×5 through
 * bars 225.8, centers 129.5, edges 76.5; with a wider end to the bars'
 * beam 222.1, centers 123.0, edges 79.1; with the centers' last step
 * picking the answer that leaves the edges most paired 4×4 54.6, 5×5
 * 93.0, 7×7 220.0, centers 16.9, 33.4, 124.0, edges 18.5, 40.4, 76.4;
 * 7×7 with the bars' beam 64 states wide from 20 paired 213.9, centers
 * 118.6, edges 75.75; 6×6 and 9×9 with the centers inside out and the
 * edge beam past 8×8 161.9 and 459.0, centers 77.4 and 269.75, edges
 * 62.0 and 169.5; 9×9 with the edge beam's slices as blocks of up to six
 * layers and the multi-orbit wing commutators 405.5, edges 115.6, where
 * with blocks of two the bench's first ten states' edges took 132.3)
 * plus about 5%; for 4×4 that is also under the
 * published average of 72. With the centers' last answers tried against
 * the edge beam (centers_staged.c, st_try) 4×4, 5×5 and 6×6 54.12, 90.0
 * and 157.0, edges 17.75, 38.0 and 57.62, where without the trials they
 * are 54.38, 92.62 and 164.38, edges 18.12, 40.38 and 63.25: their
 * bounds now sit between (4×4 about 2% over). With an inner ring's last
 * answers tried against the bar step after it too (6×6 to 9×9, st_try)
 * 6×6, 7×7 and 9×9 153.5, 209.25 and 389.88, centers 76.38, 116.38 and
 * 259.0, where without those trials they are 157.0, 211.88 and 405.12,
 * centers 78.62, 118.38 and 269.62: their bounds sit between too. With
 * 3 edge-beam trials on 4×4 and 7×7 and 5×5's beam 44 states a level
 * (edges_beam.c, EB_W5) 4×4, 5×5 and 7×7 53.12, 89.5 and 208.75, edges
 * 16.75, 36.5 and 73.25, where before they were 54.12, 90.0 and 209.25,
 * edges 17.75, 38.0 and 74.12: between again (answers do not depend on
 * the machine's speed, so the same every run). With 9×9's bar step
 * answers tried against the next bar step (centers_bars.c,
 * reduce__bar_pair) 9×9 389.5, centers 258.25, where without them
 * 389.88 and 259.0: its bounds between. */
#define MEAN_BOUND_4 53.6
#define MEAN_BOUND_5 89.75
#define MEAN_BOUND_7 209.0
#define CENTER_BOUND_4 18.0
#define CENTER_BOUND_5 35.5
#define CENTER_BOUND_7 117.5
#define EDGE_BOUND_4 17.25
#define EDGE_BOUND_5 37.25
#define EDGE_BOUND_7 73.7
#define MEAN_BOUND_6 155.5
#define CENTER_BOUND_6 77.5
#define EDGE_BOUND_6 60.0
#define MEAN_BOUND_9 389.7
#define CENTER_BOUND_9 258.6
#define EDGE_BOUND_9 121.5

/* make test checks the golden answers up to this size (one verified
 * answer of each size, a few seconds in all), make test-slow the rest
 * (10×10 to 12×12 take a second or more each, 100×100 several) */
#define GOLDEN_EVERYDAY_N 7

static void *tables;
/* The staged-center tables, built once for the whole case as the server
 * builds them once for all its solves; shared_stage_tables checks that
 * a solve that builds its own gives the same answer move for move. */
static void *stage;

static void load_tables(void)
{
	if (!tables)
		tables = solver_tables3_cached("check_reduce");
	if (!stage) {
		size_t ts = reduce_stage_tables_size(),
		       sws = reduce_stage_tables_work_size();
		void *work = malloc(sws);
		stage = malloc(ts);
		REQUIRE(work && stage &&
			reduce_stage_tables_build(stage, ts, work, sws, NULL) ==
				0);
		free(work);
	}
}

static int wing_orbits_of(int n)
{
	return (n - 2) / 2;
}

static cube_t *random_cube(int n, uint64_t seed)
{
	cube_t *c = new_cube(n);
	cube_rng r;
	cube_rng_seed(&r, seed);
	int len = scramble_length(n);
	cube_move *m = malloc((size_t)len * sizeof *m);
	REQUIRE(m);
	for (int k = 0; k < 2; k++) {
		REQUIRE(scramble_moves(&r, n, m, len) == len);
		REQUIRE(cube_apply_moves(c, m, (size_t)len) == CUBE_OK);
	}
	free(m);
	return c;
}

/* Every face one colour; returns 1 if so, with the colours in col[]. */
static int faces_uniform(const cube_t *c, int col[6])
{
	for (int f = 0; f < 6; f++) {
		col[f] = cube_get(c, f, 0, 0);
		for (int r = 0; r < c->n; r++)
			for (int k = 0; k < c->n; k++)
				if (cube_get(c, f, r, k) != col[f])
					return 0;
	}
	return 1;
}

struct solved {
	int count;
	reduce_result res;
	cube_move *moves;
};

static struct solved solve_rl(const cube_t *c, const reduce_limits *rl);

/* Solve c at an effort (0: the default) and check everything about the
 * answer. */
static struct solved solve_opts(const cube_t *c, const void *stage_tables,
				int effort, const void *phases)
{
	int n = c->n;
	/* phases: the 4×4's or the 5×5's phase tables, by n */
	reduce_limits rl = {.stage_tables = stage_tables, .effort = effort,
			    .four_tables = n == 4 ? phases : NULL,
			    .five_tables = n == 5 ? phases : NULL};
	return solve_rl(c, &rl);
}

/* Solve c under rl and check everything about the answer. */
static struct solved solve_rl(const cube_t *c, const reduce_limits *rl)
{
	int n = c->n;
	size_t ws = reduce_work_size(n), cap = reduce_max_moves(n);
	void *work = malloc(ws);
	struct solved s;
	s.moves = malloc(cap * sizeof *s.moves);
	REQUIRE(ws > 0 && cap > 0 && work && s.moves);
	s.count = reduce_solve(tables, c, rl, work, ws, s.moves, cap, &s.res);
	free(work);
	ck_assert_msg(s.count >= 0, "n=%d: %s", n, solve_errname(s.count));
	ck_assert_int_eq(s.res.count, s.count);

	/* the stages in order, end to end */
	int at = 0;
	for (int k = 0; k < REDUCE_STAGES; k++) {
		ck_assert_str_eq(s.res.stage[k].name, reduce_stage_name(k));
		ck_assert_int_eq(s.res.stage[k].start, at);
		ck_assert_int_ge(s.res.stage[k].count, 0);
		at += s.res.stage[k].count;
	}
	ck_assert_int_eq(at, s.count);
	ck_assert_int_le(s.res.stage[REDUCE_3X3].count, 24);
	/* every stage as merged as it gets ("U Uw'" is one turn, 2-3Uw'),
	 * the phase solvers' stages too; staged centers step by step (their
	 * steps are kept apart: center_steps) */
	for (int k = 0; k < REDUCE_STAGES; k++) {
		int seg[4] = {s.res.stage[k].count, 0, 0, 0}, at = s.res.stage[k].start;
		if (k == REDUCE_CENTERS && s.res.center_steps[0] +
						   s.res.center_steps[1] +
						   s.res.center_steps[2] +
						   s.res.center_steps[3] > 0)
			memcpy(seg, s.res.center_steps, sizeof seg);
		for (int j = 0; j < 4; j++) {
			size_t len = (size_t)seg[j];
			cube_move *m = malloc((len ? len : 1) * sizeof *m);
			REQUIRE(m);
			memcpy(m, s.moves + at, len * sizeof *m);
			size_t got = moves_merge_blocks(m, moves_simplify(m, len), n);
			ck_assert_msg(got == len,
				      "n=%d stage %s (%d): %zu moves merge to %zu",
				      n, reduce_stage_name(k), j, len, got);
			free(m);
			at += seg[j];
		}
	}
	if (n % 2)
		ck_assert_int_eq(s.res.pll_parity, 0);

	/* applied as moves */
	cube_t *d = new_cube(n);
	cube_copy(d, c);
	/* layer and block turns, never a whole-cube rotation */
	for (int i = 0; i < s.count; i++)
		REQUIRE(s.moves[i].lo <= s.moves[i].hi &&
			(s.moves[i].lo > 0 || s.moves[i].hi < n - 1) &&
			s.moves[i].qt >= 1 && s.moves[i].qt <= 3);
	REQUIRE(cube_apply_moves(d, s.moves, (size_t)s.count) == CUBE_OK);
	int col[6];
	ck_assert_msg(faces_uniform(d, col), "n=%d: not solved", n);
	/* the frame: odd n keeps its centers; res->orient names U and F */
	for (int f = 0; f < 6 && n % 2; f++)
		ck_assert_int_eq(col[f], cube_get(c, f, n / 2, n / 2));
	ck_assert_int_eq(s.res.orient.up, cube_face_letters[col[CUBE_U]]);
	ck_assert_int_eq(s.res.orient.front, cube_face_letters[col[CUBE_F]]);

	/* applied as the printed text, read back by the parser */
	size_t need = moves_print(s.moves, (size_t)s.count, n, NULL, 0);
	char *text = malloc(need + 1);
	REQUIRE(text);
	moves_print(s.moves, (size_t)s.count, n, text, need + 1);
	size_t nc = alg_nodes_needed(need);
	alg_node *nodes = malloc(nc * sizeof *nodes);
	alg_limits lim;
	alg_limits_default(&lim);
	lim.max_moves = 1000000;
	alg_t a;
	REQUIRE(nodes);
	ck_assert_int_eq(alg_parse(&a, nodes, nc, n, text, need, &lim, NULL),
			 CUBE_OK);
	ck_assert_uint_eq(a.length, (uint64_t)s.count);
	cube_copy(d, c);
	ck_assert_int_eq(alg_apply(&a, d, 0), CUBE_OK);
	ck_assert_msg(faces_uniform(d, col), "n=%d: the text does not solve", n);
	free(nodes);
	free(text);
	free(d);
	return s;
}

static struct solved solve_effort(const cube_t *c, const void *stage_tables,
				  int effort)
{
	return solve_opts(c, stage_tables, effort, NULL);
}

static struct solved solve_with(const cube_t *c, const void *stage_tables)
{
	return solve_effort(c, stage_tables, 0);
}

static struct solved solve_checked(const cube_t *c)
{
	return solve_with(c, stage);
}

static void random_states(int n, int count)
{
	for (int k = 0; k < count; k++) {
		cube_t *c = random_cube(n, 9000u + 100u * (unsigned)n + (unsigned)k);
		struct solved s = solve_checked(c);
		free(s.moves);
		free(c);
	}
}

START_TEST(random_4_to_12)
{
	for (int n = 4; n <= 12; n++)
		random_states(n, test_slow() ? 4 : 1);
}
END_TEST

/* make test: one 17×17; make test-slow: two, and a 33×33 */
START_TEST(random_17_and_33)
{
	random_states(17, test_slow() ? 2 : 1);
	if (test_slow())
		random_states(33, 1);
}
END_TEST

START_TEST(solved_needs_nothing)
{
	for (int n = 4; n <= 9; n++) {
		cube_t *c = new_cube(n);
		struct solved s = solve_checked(c);
		ck_assert_int_eq(s.count, 0);
		ck_assert_int_eq(s.res.oll_parity, 0);
		ck_assert_int_eq(s.res.pll_parity, 0);
		free(s.moves);
		free(c);
	}
}
END_TEST

/* Flip the dedge between U and F (all its wings, or only orbit 1's; on
 * odd n never the midge, whose flip alone is no cube): its U stickers
 * are U's last row, its F stickers F's first row, column by column. */
static void flip_uf(cube_t *c, int all)
{
	int n = c->n;
	for (int k = 1; k < n - 1; k++) {
		if (!all && k != 1 && k != n - 2)
			continue;
		if (n % 2 && 2 * k == n - 1)
			continue;
		int u = cube_get(c, CUBE_U, n - 1, k);
		cube__set(c, CUBE_U, n - 1, k, cube_get(c, CUBE_F, 0, k));
		cube__set(c, CUBE_F, 0, k, u);
	}
}

/* Swap the dedges UF and UB of a solved cube (their U stickers match). */
static void swap_uf_ub(cube_t *c)
{
	int n = c->n;
	for (int k = 1; k < n - 1; k++) {
		cube__set(c, CUBE_F, 0, k, CUBE_B);
		cube__set(c, CUBE_B, 0, k, CUBE_F);
	}
}

START_TEST(oll_parity_even)
{
	for (int n = 4; n <= 6; n += 2) {
		cube_t *c = new_cube(n);
		flip_uf(c, 1);
		struct solved s = solve_checked(c);
		ck_assert_int_eq(s.res.oll_parity, (n - 2) / 2);
		ck_assert_int_gt(s.res.stage[REDUCE_OLL_PARITY].count, 0);
		free(s.moves);
		/* the same flipped cube scrambled: every orbit's parity is
		 * the scramble's own, reversed */
		cube_t *t = new_cube(n);
		cube_rng g;
		cube_rng_seed(&g, 77);
		int len = scramble_length(n);
		cube_move *m = malloc((size_t)len * sizeof *m);
		REQUIRE(m && scramble_moves(&g, n, m, len) == len);
		REQUIRE(cube_apply_moves(t, m, (size_t)len) == CUBE_OK);
		s = solve_checked(t);
		int plain = s.res.oll_parity;
		free(s.moves);
		cube_copy(t, c);
		REQUIRE(cube_apply_moves(t, m, (size_t)len) == CUBE_OK);
		s = solve_checked(t);
		ck_assert_int_eq(s.res.oll_parity, (n - 2) / 2 - plain);
		free(s.moves);
		free(m);
		free(t);
		free(c);
	}
}
END_TEST

START_TEST(pll_parity_even)
{
	for (int n = 4; n <= 6; n += 2) {
		cube_t *c = new_cube(n);
		swap_uf_ub(c);
		struct solved s = solve_checked(c);
		ck_assert_int_eq(s.res.pll_parity, 1);
		ck_assert_int_eq(s.res.oll_parity, 0);
		ck_assert_int_gt(s.res.stage[REDUCE_PLL_PARITY].count, 0);
		ck_assert_int_eq(s.res.stage[REDUCE_OLL_PARITY].count, 0);
		free(s.moves);
		free(c);
	}
}
END_TEST

START_TEST(both_parities_even)
{
	for (int n = 4; n <= 6; n += 2) {
		cube_t *c = new_cube(n);
		swap_uf_ub(c);
		flip_uf(c, 1);
		struct solved s = solve_checked(c);
		ck_assert_int_eq(s.res.oll_parity, (n - 2) / 2);
		ck_assert_int_gt(s.res.stage[REDUCE_OLL_PARITY].count, 0);
		free(s.moves);
		free(c);
	}
}
END_TEST

/* Even n: the PLL parity is avoided where that costs less than its six
 * moves: at the edge beam's end (8×8: a state whose edges stand an odd
 * permutation from the corners counts six moves more), and where the
 * commutators pair the edges (12×12, 16×16) by pairing them against the
 * voted edge set and against it with two edges' colours exchanged, the
 * shorter kept. These 24 seeded states needed the parity 14 times
 * before; then 8. Since the bars' twins (centers_bars.c) the 12×12 and
 * 16×16 states reach their edges from other centers, and 9 of the 24
 * need it (PLL_AVOIDED_MAX), still well under the 14 without the
 * avoiding. Each answer verified. The count is make test-slow's
 * (pll_parity_count: 16 s); make test solves one state of each size and
 * checks its parity stage (the sanitized run the 8×8 and the 12×12). */
#define PLL_AVOIDED_MAX 9
static void pll_avoided(size_t nsizes, int per_size, int check_count)
{
	static const int sizes[] = {8, 12, 16};
	int needed = 0;
	for (size_t i = 0; i < nsizes; i++)
		for (int k = 0; k < per_size; k++) {
			int n = sizes[i];
			cube_t *c = random_cube(n, 9400u + 100u * (unsigned)n +
							   (unsigned)k);
			struct solved s = solve_checked(c);
			ck_assert_int_eq(s.res.stage[REDUCE_PLL_PARITY].count,
					 s.res.pll_parity ? 6 : 0);
			needed += s.res.pll_parity;
			free(s.moves);
			free(c);
		}
	if (check_count)
		ck_assert_int_le(needed, PLL_AVOIDED_MAX);
}

START_TEST(pll_parity_avoided)
{
	/* under the sanitizers without the 16×16 (over a minute there) */
	pll_avoided(SANITIZED ? 2 : 3, 1, 0);
}
END_TEST

START_TEST(pll_parity_count)
{
	pll_avoided(3, 8, 1);
}
END_TEST

static int edges_unpaired(const cube_t *c, int f);

/* The pll_parity stage's six moves, whichever of its versions the solver
 * took (r's axis and half, U's axis and side: the one whose 3×3 finish
 * came shortest), keep every center solved and every edge paired and
 * leave a 3×3 that is not solved: applied to a solved cube they only
 * swap two dedges (and turn a face). Over these states more than one
 * version is taken (version 0 alone fails this). */
START_TEST(pll_stage_versions)
{
	static const int sizes[] = {4, 6, 8, 10, 12};
	int seen = 0, used[3][REDUCE_MAX_N] = {{0}};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		for (int k = 0; k < 4; k++) {
			int n = sizes[i];
			cube_t *c = new_cube(n);
			swap_uf_ub(c);
			cube_rng g;
			cube_rng_seed(&g, 9700u + 10u * (unsigned)n +
						  (unsigned)k);
			int all = scramble_length(n), len = 4 * k;
			cube_move *m = malloc((size_t)all * sizeof *m);
			REQUIRE(m && scramble_moves(&g, n, m, all) == all);
			/* face turns only: the PLL parity stays */
			for (int j = 0; j < len; j++)
				m[j].lo = m[j].hi = m[j].lo < n / 2 ? 0
					: (uint16_t)(n - 1);
			REQUIRE(cube_apply_moves(c, m, (size_t)len) == CUBE_OK);
			free(m);
			struct solved s = solve_checked(c);
			ck_assert_int_eq(s.res.pll_parity, 1);
			const reduce_stage *st =
				&s.res.stage[REDUCE_PLL_PARITY];
			ck_assert_int_eq(st->count, 6);
			cube_t *t = new_cube(n);
			REQUIRE(cube_apply_moves(t, s.moves + st->start, 6) ==
				CUBE_OK);
			for (int f = 0; f < 6; f++) {
				for (int r = 1; r < n - 1; r++)
					for (int q = 1; q < n - 1; q++)
						ck_assert_int_eq(
							cube_get(t, f, r, q),
							cube_get(t, f, 1, 1));
				ck_assert_int_eq(edges_unpaired(t, f), 0);
			}
			int col[6];
			ck_assert(!faces_uniform(t, col));
			/* the version's slice: its axis and first layer (from
			 * 8×8 on, where one variant runs, unturned) */
			const cube_move *sl = &s.moves[st->start];
			if (n >= 8 && !used[sl->axis][sl->lo]++)
				seen++;
			free(t);
			free(s.moves);
			free(c);
		}
	ck_assert_int_ge(seen, 2);
}
END_TEST

/* The parity cases on every size from 4 to 12 and some larger ones (the
 * slow sweep): each state solved and its answer verified (solve_checked
 * applies it as moves and as text); where the case fixes the counts they
 * are asserted:
 *   - OLL parity: the UF dedge flipped whole, every wing orbit odd
 *     (oll_parity = all of them), on a solved cube and scrambled (then
 *     the scramble's own count, reversed);
 *   - a lone flipped wing pair: orbit 1's two UF wings flipped, that
 *     orbit alone odd (oll_parity 1; on odd n the "last two edges"
 *     case);
 *   - PLL parity (even n): the UF and UB dedges swapped (pll_parity,
 *     and no OLL parity);
 *   - both (even n): swapped and flipped;
 *   - none: the swapped-and-flipped cube turned by a whole dedge flip
 *     and swap again is solved; random states cover the rest. */
static void parity_cases(int n)
{
	int w = wing_orbits_of(n);
	cube_t *c = new_cube(n), *t = new_cube(n);
	cube_rng g;
	cube_rng_seed(&g, 8100u + (unsigned)n);
	int len = scramble_length(n);
	cube_move *m = malloc((size_t)len * sizeof *m);
	REQUIRE(m && scramble_moves(&g, n, m, len) == len);

	/* OLL parity, plain and scrambled */
	flip_uf(c, 1);
	struct solved s = solve_checked(c);
	ck_assert_int_eq(s.res.oll_parity, w);
	free(s.moves);
	REQUIRE(cube_apply_moves(t, m, (size_t)len) == CUBE_OK);
	s = solve_checked(t);
	int plain = s.res.oll_parity;
	free(s.moves);
	cube_copy(t, c);
	REQUIRE(cube_apply_moves(t, m, (size_t)len) == CUBE_OK);
	s = solve_checked(t);
	ck_assert_int_eq(s.res.oll_parity, w - plain);
	free(s.moves);

	/* a lone flipped wing pair */
	cube_init(c, n);
	flip_uf(c, 0);
	s = solve_checked(c);
	ck_assert_int_eq(s.res.oll_parity, 1);
	ck_assert_int_eq(s.res.pll_parity, 0);
	free(s.moves);
	cube_copy(t, c);
	REQUIRE(cube_apply_moves(t, m, (size_t)len) == CUBE_OK);
	s = solve_checked(t);
	free(s.moves);

	if (n % 2 == 0) {
		/* PLL parity, then both, each plain and scrambled */
		cube_init(c, n);
		swap_uf_ub(c);
		s = solve_checked(c);
		ck_assert_int_eq(s.res.pll_parity, 1);
		ck_assert_int_eq(s.res.oll_parity, 0);
		free(s.moves);
		cube_copy(t, c);
		REQUIRE(cube_apply_moves(t, m, (size_t)len) == CUBE_OK);
		s = solve_checked(t);
		free(s.moves);
		flip_uf(c, 1);
		s = solve_checked(c);
		ck_assert_int_eq(s.res.oll_parity, w);
		free(s.moves);
		cube_copy(t, c);
		REQUIRE(cube_apply_moves(t, m, (size_t)len) == CUBE_OK);
		s = solve_checked(t);
		free(s.moves);
	}
	random_states(n, 2);
	free(m);
	free(t);
	free(c);
}

START_TEST(parity_sweep)
{
	static const int sizes[] = {4, 5, 6, 7, 8, 9, 10, 11, 12,
				    13, 16, 17, 20, 33};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		parity_cases(sizes[i]);
}
END_TEST

/* Sizes past the inside-out centers (33×33) and the largest: random
 * states and the parity cases, verified. */
START_TEST(parity_largest)
{
	parity_cases(48);
	parity_cases(REDUCE_MAX_N);
}
END_TEST

/* Odd n: one wing orbit's pair flipped against its midge (the "last two
 * edges" parity) in one orbit only. */
START_TEST(lone_flip_odd)
{
	for (int n = 5; n <= 7; n += 2) {
		cube_t *c = new_cube(n);
		flip_uf(c, 0);
		struct solved s = solve_checked(c);
		ck_assert_int_eq(s.res.oll_parity, 1);
		ck_assert_int_eq(s.res.stage[REDUCE_OLL_PARITY].count, 1);
		ck_assert_int_eq(s.res.pll_parity, 0);
		free(s.moves);
		free(c);
	}
}
END_TEST

/* An illegal state: reduce_solve refuses it, and validation says why
 * (its first problem is want, when want is not NULL). */
static void refused(cube_t *c, const char *want)
{
	int n = c->n;
	size_t ws = reduce_work_size(n), cap = reduce_max_moves(n);
	void *work = malloc(ws);
	cube_move *m = malloc(cap * sizeof *m);
	reduce_result res;
	REQUIRE(work && m);
	ck_assert_int_eq(reduce_solve(tables, c, NULL, work, ws, m, cap, &res),
			 CUBE_EINVALID);
	size_t len = 6u * (size_t)n * (size_t)n;
	char *s = malloc(len);
	REQUIRE(s);
	cube_to_facelets(c, s);
	cube_problem p[4];
	cube_validation_result vr;
	int count = cube_validate(s, len, p, 4, &vr);
	if (want) {
		ck_assert_int_ge(count, 1);
		ck_assert_str_eq(cube_validation_code(p[0].reason), want);
	}
	free(s);
	free(m);
	free(work);
}

START_TEST(illegal_states)
{
	for (int n = 4; n <= 5; n++) {
		/* a sticker of the wrong colour */
		cube_t *c = random_cube(n, 5);
		cube__set(c, CUBE_U, 1, 1, (cube_get(c, CUBE_U, 1, 1) + 1) % 6);
		refused(c, "color_count");
		free(c);

		/* a corner twisted in place */
		c = random_cube(n, 6);
		int m = n - 1;
		int a = cube_get(c, CUBE_U, m, m), b = cube_get(c, CUBE_R, 0, 0),
		    d = cube_get(c, CUBE_F, 0, m);
		cube__set(c, CUBE_U, m, m, b);
		cube__set(c, CUBE_R, 0, 0, d);
		cube__set(c, CUBE_F, 0, m, a);
		refused(c, "twist");
		free(c);

		/* a center sticker swapped with a wing sticker of another
		 * colour: every colour still n² times, an orbit broken and a
		 * wing showing U twice (listed first: reasons in order) */
		c = new_cube(n);
		cube__set(c, CUBE_U, 1, 1, CUBE_F);
		cube__set(c, CUBE_F, 0, 1, CUBE_U);
		refused(c, "no_such_edge");
		free(c);

		/* one wing flipped in place: counts and orbits fine, the
		 * wing orbit holds one piece twice */
		c = new_cube(n);
		cube__set(c, CUBE_U, n - 1, 1, CUBE_F);
		cube__set(c, CUBE_F, 0, 1, CUBE_U);
		refused(c, "duplicate_edge");
		free(c);
	}
}
END_TEST

static int stop_at_once(void *ctx, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	++*(int *)ctx;
	return 1;
}

START_TEST(poll_cap_and_arguments)
{
	cube_t *c = random_cube(6, 3);
	size_t ws = reduce_work_size(6), cap = reduce_max_moves(6);
	void *work = malloc(ws);
	cube_move *m = malloc(cap * sizeof *m);
	reduce_result res;
	REQUIRE(work && m);
	int calls = 0;
	reduce_limits lim = {.poll = stop_at_once, .ctx = &calls};
	ck_assert_int_eq(reduce_solve(tables, c, &lim, work, ws, m, cap, &res),
			 SOLVE_ENOTFOUND);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(reduce_solve(tables, c, NULL, work, ws, m, 10, &res),
			 CUBE_ESPACE);
	ck_assert_int_eq(reduce_solve(tables, c, NULL, work, ws - 1, m, cap,
				      &res),
			 CUBE_EINVAL);
	ck_assert_int_eq(reduce_solve(NULL, c, NULL, work, ws, m, cap, &res),
			 CUBE_EINVAL);
	reduce_limits bad = {.effort = -1};
	ck_assert_int_eq(reduce_solve(tables, c, &bad, work, ws, m, cap, &res),
			 CUBE_EINVAL);
	bad.effort = REDUCE_MAX_EFFORT + 1;
	ck_assert_int_eq(reduce_solve(tables, c, &bad, work, ws, m, cap, &res),
			 CUBE_EINVAL);
	ck_assert_uint_eq(reduce_work_size(3), 0);
	ck_assert_uint_eq(reduce_max_moves(REDUCE_MAX_N + 1), 0);
	static const int nvar[][2] = {{3, 0},  {4, 20}, {5, 5},
				      {6, 3},  {7, 3},  {8, 1},
				      {33, 1}, {REDUCE_MAX_N, 1},
				      {REDUCE_MAX_N + 1, 0}};
	for (size_t i = 0; i < sizeof nvar / sizeof *nvar; i++)
		ck_assert_int_eq(reduce_variants(nvar[i][0]), nvar[i][1]);
	cube_t *small = new_cube(3);
	ck_assert_int_eq(reduce_solve(tables, small, NULL, work, ws, m, cap,
				      &res),
			 CUBE_ESIZE);
	ck_assert_ptr_null(reduce_stage_name(REDUCE_STAGES));
	ck_assert_str_eq(reduce_stage_name(REDUCE_3X3), "3x3");
	free(small);
	free(m);
	free(work);
	free(c);
}
END_TEST

/* A poll that counts its calls and stops from call stop_at on (never if
 * stop_at is 0). */
struct counted {
	long calls, stop_at;
};

static int count_polls(void *ctx, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	struct counted *k = ctx;
	return ++k->calls >= k->stop_at && k->stop_at > 0;
}

/* Small cubes run several variants and keep the shortest: a poll that
 * stops the last of them keeps a correct answer, no shorter than the one
 * a full run gives. */
START_TEST(poll_late_keeps_answer)
{
	cube_t *c = random_cube(4, 42);
	size_t ws = reduce_work_size(4), cap = reduce_max_moves(4);
	void *work = malloc(ws);
	cube_move *m = malloc(cap * sizeof *m);
	REQUIRE(work && m);
	struct counted k = {0, 0};
	reduce_limits lim = {.poll = count_polls, .ctx = &k};
	reduce_result res;
	int full = reduce_solve(tables, c, &lim, work, ws, m, cap, &res);
	ck_assert_int_gt(full, 0);
	ck_assert_int_gt(k.calls, 10);
	k.stop_at = k.calls - 1;
	k.calls = 0;
	int late = reduce_solve(tables, c, &lim, work, ws, m, cap, &res);
	ck_assert_int_ge(late, full);
	ck_assert_int_eq(res.count, late);
	cube_t *d = new_cube(4);
	cube_copy(d, c);
	REQUIRE(cube_apply_moves(d, m, (size_t)late) == CUBE_OK);
	int col[6];
	ck_assert(faces_uniform(d, col));
	free(d);
	free(m);
	free(work);
	free(c);
}
END_TEST

/* An anytime solve (reduce_limits.stop): a poll that says stop from its
 * first call, as a deadline already past does on a busy machine, still
 * gets an answer, checked, at every kind of size: several variants (4×4
 * stage by stage, 6×6), one pass (9×9) and hurried as the server hurries
 * (hurry says yes at once). Without stop the same poll gets
 * SOLVE_ENOTFOUND, and a stop that says yes ends it with none. */
static int stop_never(void *ctx)
{
	(void)ctx;
	return 0;
}

static int stop_now(void *ctx)
{
	(void)ctx;
	return 1;
}

static int yes(void *ctx)
{
	(void)ctx;
	return 1;
}

START_TEST(anytime_answers)
{
	static const int sizes[] = {4, 6, 9};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		int n = sizes[i];
		cube_t *c = random_cube(n, 700 + (unsigned)n);
		size_t ws = reduce_work_size(n), cap = reduce_max_moves(n);
		void *work = malloc(ws);
		cube_move *m = malloc(cap * sizeof *m);
		REQUIRE(work && m);
		for (int hurried = 0; hurried < 2; hurried++) {
			struct counted k = {0, 1}; /* stop at the first */
			reduce_limits lim = {.poll = count_polls, .ctx = &k,
					     .stage_tables = stage,
					     .hurry = hurried ? yes : NULL};
			reduce_result res;
			int none = reduce_solve(tables, c, &lim, work, ws, m,
						cap, &res);
			ck_assert_msg(none == SOLVE_ENOTFOUND,
				      "%dx%d without stop: %d", n, n, none);
			k.calls = 0;
			lim.stop = stop_never;
			int got = reduce_solve(tables, c, &lim, work, ws, m,
					       cap, &res);
			ck_assert_msg(got > 0, "%dx%d anytime: %d", n, n, got);
			ck_assert_int_eq(res.count, got);
			cube_t *d = new_cube(n);
			cube_copy(d, c);
			REQUIRE(cube_apply_moves(d, m, (size_t)got) == CUBE_OK);
			int col[6];
			ck_assert_msg(faces_uniform(d, col),
				      "%dx%d anytime answer does not solve", n,
				      n);
			free(d);
			lim.stop = stop_now;
			ck_assert_int_eq(reduce_solve(tables, c, &lim, work,
						      ws, m, cap, &res),
					 SOLVE_ENOTFOUND);
		}
		free(m);
		free(work);
		free(c);
	}
}
END_TEST

/* Mean moves (STM), center moves and edge moves over k random n×n×n
 * states from seed0 on, every answer checked by solve_checked. */
static void mean_lengths(int n, unsigned seed0, int k, int effort,
			 double *moves, double *centers, double *edges)
{
	double sum = 0, csum = 0, esum = 0;
	for (int i = 0; i < k; i++) {
		cube_t *c = random_cube(n, seed0 + (unsigned)i);
		struct solved s = solve_effort(c, stage, effort);
		alg_metrics am;
		moves_metrics(s.moves, (size_t)s.count, n, &am);
		ck_assert_uint_eq(am.stm, (uint64_t)s.count);
		sum += (double)am.stm;
		csum += s.res.stage[REDUCE_CENTERS].count;
		esum += s.res.stage[REDUCE_EDGES].count;
		free(s.moves);
		free(c);
	}
	*moves = sum / k;
	*centers = csum / k;
	*edges = esum / k;
}

/* A regression guard on length, in STM (a block turn counts one, as the
 * published figures do): the mean over fixed states stays under what
 * the solver reached when this was written (4×4, 5×5, 7×7, 8 states each;
 * bench/RESULTS.md has the full figures). */
START_TEST(mean_length_guard)
{
	static const struct {
		int n;
		double bound;
		double centers, edges;
	} guard[] = {{4, MEAN_BOUND_4, CENTER_BOUND_4, EDGE_BOUND_4},
		     {5, MEAN_BOUND_5, CENTER_BOUND_5, EDGE_BOUND_5},
		     {6, MEAN_BOUND_6, CENTER_BOUND_6, EDGE_BOUND_6},
		     {7, MEAN_BOUND_7, CENTER_BOUND_7, EDGE_BOUND_7},
		     {9, MEAN_BOUND_9, CENTER_BOUND_9, EDGE_BOUND_9}};
	/* a slow case: make test-slow (CUBED_SLOW=1) guards all five; run
	 * without CUBED_SLOW, the first three (4×4 to 6×6) */
	size_t sizes = test_slow() ? sizeof guard / sizeof *guard : 3;
	for (size_t g = 0; g < sizes; g++) {
		int n = guard[g].n;
		double mean, centers, edges;
		mean_lengths(n, 7700u + 10u * (unsigned)n, 8, 0, &mean, &centers,
			     &edges);
		ck_assert_msg(mean <= guard[g].bound,
			      "%dx%d: mean %.1f moves, guard %.1f", n, n, mean,
			      guard[g].bound);
		ck_assert_msg(centers <= guard[g].centers,
			      "%dx%d: centers mean %.1f moves, guard %.1f", n,
			      n, centers, guard[g].centers);
		ck_assert_msg(edges <= guard[g].edges,
			      "%dx%d: edges mean %.1f moves, guard %.1f", n,
			      n, edges, guard[g].edges);
	}
}
END_TEST

/* The same for the big cubes: 17×17 and 33×33 (centers inside out with
 * bars), and past 33×33, where the centers go by slices, block
 * commutators and 3-cycles (centers_blocks.c): the bench's first states
 * (bench --reduce 8 17, 4 33, 4 48, 4 64, 2 128), their means with the
 * block commutators over sets of columns, the set-ups that cancel and
 * the multi-orbit wing commutators (edges_wings.c) — totals 17×17 1,886.8,
 * 33×33 7,445.5, 48×48 27,677.0, 64×64 49,060.0, 128×128 189,127;
 * centers past 33×33 26,533.0, 47,575.0, 186,462; edges 400.25, 788.0,
 * 1,113.0, 1,457.0, 2,628 — the totals plus about 1%, the stages plus
 * about 2%. Before this (one run of columns, one-orbit wing 3-cycles):
 * 2,157.0, 8,058.5, 29,575.5, 52,365.0, 208,859; before the block
 * commutators about 41,000, 70,783 and 288,240 past 33×33. With the
 * 3-cycles over every orbit at once (orbits.c, reduce__cycles_all) past
 * 33×33: 26,217.0, 46,469.0, 178,863; centers 25,073.5, 44,987.0,
 * 176,198 (with the 3-cycles orbit by orbit 27,675.5, 49,055.5, 189,126;
 * centers 26,533.0, 47,575.0, 186,462: they fail it). At effort 2
 * 48×48 and 64×64 have their centers inside out as 33×33 does (the same
 * states: totals 16,466.0 and 29,716.0, centers 15,321.0 and 28,271.5,
 * edges 1,118.0 and 1,417.0), about 4.5 and 7.5 s of CPU each. 17×17
 * with the bars' wide beams (centers_bars.c, odd n 13 to 17): 1,828.2,
 * edges 429.5 (its centers leave the wings otherwise). With the edge beam
 * up to 17×17 (edges_beam.c; before it only the multi-orbit
 * commutators), 8 states a level on odd n: 17×17 1,709.8, edges 299.25;
 * 13×13 (bench --reduce 4 13) 924.25, edges 185.5 where they took
 * 1,046.8 and 307.0 (2 a level: 17×17 1,723.2 and 313.0, 13×13 947.0
 * and 208.0): the edge bounds fail without the beam there. */
/* Since the bars' blocks (centers_bars.c, 2026-11-27), these states:
 * 13×13 920.75, edges 204.5 (other centers, other wings: over the bench's
 * first 16, 189.88 → 193.56 while the centers went 728.94 → 703.06);
 * 17×17 1,649.0 (the bound fails the 1,709.8 before); 23×23 3,167.0;
 * 18×18 1,999.0, centers 1,652.0; 33×33 6,674.5, centers 5,999.0,
 * edges 654.0; 28×28 5,031.0, centers 4,349.5; at effort 2 48×48
 * 15,511.0 (centers 14,395.0), 64×64 27,570.0 (26,129.5), 72×72 35,091
 * (33,483); at effort 3 128×128 111,560 (108,955). The bounds below
 * fail each figure before them that the comments give.
 * Since the bars' twins (centers_bars.c, bar_twin; 2026-11-28): 13×13
 * 893.2, edges 195.8; 17×17 1,583.8; 23×23 3,088.5; 18×18 1,966.5,
 * centers 1,573.0; 33×33 6,550.0, centers 5,801.5, edges 727.0 (other
 * centers, other wings: over the bench's states 4 to 11 the edges went
 * 683.75 → 667.25, on these two 654.0 → 727.0, so the edge bound moved
 * to 760, which still fails the 809.5 without the edge beam); 28×28
 * 4,866.5, centers 4,176.0; at effort 2 48×48 14,864.5 (13,729.5),
 * 64×64 26,410.5 (24,931.5; edges 1,454.0 against 1,417.0), 72×72
 * 33,314 (31,724); at effort 3 128×128 106,676 (104,012). The block
 * commutators' sizes (48×48 to 128×128 at the default, 128×128 at
 * effort 2) are as they were. The bounds fail the figures before the
 * twins. */
#define BIG_BOUND_13 940.0
#define BIG_EDGE_BOUND_13 215.0
#define BIG_BOUND_17 1620.0
#define BIG_EDGE_BOUND_17 306.0
/* 23×23, an odd n past 17 where the beam runs 2 states a level: 3,364.0
 * moves, edges 522.0 (bench --reduce 4 23: 2 states) where the
 * commutators alone took 3,417.5 and 575.5 */
#define BIG_BOUND_23 3130.0
#define BIG_EDGE_BOUND_23 540.0
/* 18×18, an even n from 16 to 24, whose centers go inside out at the
 * default effort since the bars' scan and the staged searches' budget
 * left time for it (plan.c, staged_top): the bench's first two 2,110.0
 * moves, centers 1,666.5, edges 419.0, with the last obliques' beam 32
 * wide (2,166.5 with 16; by block commutators 3,703.4 over 8 states).
 * 33×33 with it: 7,228.5 (7,445.5 before); since a bar step whose
 * beam dies makes the most it paired (centers_bars.c, bar_partial),
 * 7,211.0, centers 6,379.5, edges 809.5 (the edges start from other
 * centers: over the bench's first 8, 790.88 against 791.00 before).
 * 18×18 with the edge beam, 1 state a level (even n from 16 to 20):
 * 2,076.0, edges 387.5 (419.0 without it, which the edge bound fails). */
#define BIG_BOUND_18 1990.0
#define BIG_CENTER_BOUND_18 1610.0
#define BIG_EDGE_BOUND_18 400.0
/* 33×33 with the edge beam (2 states a level, odd n past 17×17): 7,134.0,
 * edges 732.0 (809.5 without it); with the lean search and the bars'
 * wide beams (plan.c, lean): 6,953.0, centers 6,263.5, edges 667.0
 * (the bounds fail the 7,134.0 and 732.0 before) */
#define BIG_BOUND_33 6620.0
#define BIG_CENTER_BOUND_33 5880.0
#define BIG_EDGE_BOUND_33 760.0
/* 28×28, an even n from 26 to 32, inside out lean at the default effort
 * since 2026-11-27 (plan.c, lean), the last obliques' beam 32 wide
 * (centers_bars.c, BAR_MID_EVEN_HI): 5,189.0 moves, centers 4,503.5,
 * edges 661.5; with that beam 16 wide 5,347.0 and 4,662.5, by the block
 * commutators before about 8,900 (the bounds fail both) */
#define BIG_BOUND_28 4950.0
#define BIG_CENTER_BOUND_28 4260.0
#define BIG_EDGE_BOUND_28 680.0
/* 48×48, 64×64, 128×128 (block commutators) with the default's 6
 * sweeps (centers_blocks.c, BLK_THR): 25,858.0 moves, centers 24,703.0;
 * 45,827.0 and 44,347.0; 175,840 and 173,176; with the 4 before
 * (10, 6, 4, 3), which these bounds fail: 26,307.0 and 25,152.0;
 * 46,497.0 and 45,017.0; 178,862 and 176,198 */
#define BIG_BOUND_48 26000.0
#define BIG_CENTER_BOUND_48 24900.0
#define BIG_EDGE_BOUND_48 1135.0
#define BIG_BOUND_64 46150.0
#define BIG_CENTER_BOUND_64 44700.0
#define BIG_EDGE_BOUND_64 1486.0
#define BIG_BOUND_128 176800.0
#define BIG_CENTER_BOUND_128 174100.0
#define BIG_EDGE_BOUND_128 2680.0
#define MORE_BOUND_48 15200.0
#define MORE_CENTER_BOUND_48 14050.0
#define MORE_EDGE_BOUND_48 1140.0
#define MORE_BOUND_64 27000.0
#define MORE_CENTER_BOUND_64 25500.0
#define MORE_EDGE_BOUND_64 1475.0
/* 128×128 at effort 2 (4 rows, 9 sweeps: 173,384 moves, centers
 * 170,720, edges 2,628; the default's 2 rows and 4 sweeps 178,862, 6
 * sweeps 175,840) and
 * 3 (that pass and one more, the cube turned whole, with 14 sweeps: 172,143,
 * 169,537, 2,569); before, both 177,307 (centers_blocks.c) */
/* 72×72 at effort 2, inside out since it runs there (STAGED_MORE_MAX_N):
 * 36,314 moves, centers 34,704, edges 1,574; by the block commutators
 * (4 rows, 9 sweeps) as before, about 56,000. Before the wing parities
 * took 64 bits (turn_par), a staged step there failed its goal and the
 * solve gave stage_failed. */
#define MORE_BOUND_72 34100.0
#define MORE_CENTER_BOUND_72 32400.0
#define MORE_EDGE_BOUND_72 1600.0
#define MORE_BOUND_128 174250.0
#define MORE_CENTER_BOUND_128 171580.0
#define MORE_EDGE_BOUND_128 2680.0
/* ... and at effort 3 since its third pass solves the centers inside
 * out when the budget holds it (none here: reduce_limits.budget_ms 0):
 * 116,294 moves, centers 113,654, edges 2,611, where the block
 * commutators' two passes gave 172,143 */
#define MOST_BOUND_128 109000.0
#define MOST_CENTER_BOUND_128 106500.0
#define MOST_EDGE_BOUND_128 2650.0

START_TEST(big_length_guard)
{
	static const struct {
		int n, states, effort;
		double bound, centers, edges;
	} guard[] = {{13, 4, 0, BIG_BOUND_13, 0, BIG_EDGE_BOUND_13},
		     {17, 4, 0, BIG_BOUND_17, 0, BIG_EDGE_BOUND_17},
		     {23, 2, 0, BIG_BOUND_23, 0, BIG_EDGE_BOUND_23},
		     {18, 2, 0, BIG_BOUND_18, BIG_CENTER_BOUND_18,
		      BIG_EDGE_BOUND_18},
		     {33, 2, 0, BIG_BOUND_33, BIG_CENTER_BOUND_33,
		      BIG_EDGE_BOUND_33},
		     {28, 2, 0, BIG_BOUND_28, BIG_CENTER_BOUND_28,
		      BIG_EDGE_BOUND_28},
		     {48, 2, 0, BIG_BOUND_48, BIG_CENTER_BOUND_48,
		      BIG_EDGE_BOUND_48},
		     {64, 2, 0, BIG_BOUND_64, BIG_CENTER_BOUND_64,
		      BIG_EDGE_BOUND_64},
		     {128, 1, 0, BIG_BOUND_128, BIG_CENTER_BOUND_128,
		      BIG_EDGE_BOUND_128},
		     {48, 2, 2, MORE_BOUND_48, MORE_CENTER_BOUND_48,
		      MORE_EDGE_BOUND_48},
		     {64, 2, 2, MORE_BOUND_64, MORE_CENTER_BOUND_64,
		      MORE_EDGE_BOUND_64},
		     {72, 1, 2, MORE_BOUND_72, MORE_CENTER_BOUND_72,
		      MORE_EDGE_BOUND_72},
		     {128, 1, 2, MORE_BOUND_128, MORE_CENTER_BOUND_128,
		      MORE_EDGE_BOUND_128},
		     {128, 1, 3, MOST_BOUND_128, MOST_CENTER_BOUND_128,
		      MOST_EDGE_BOUND_128}};
	for (size_t g = 0; g < sizeof guard / sizeof *guard; g++) {
		int n = guard[g].n, e = guard[g].effort;
		double mean, centers, edges;
		mean_lengths(n, 9100u * (unsigned)n, guard[g].states, e, &mean,
			     &centers, &edges);
		ck_assert_msg(mean <= guard[g].bound,
			      "%dx%d effort %d: mean %.1f moves, guard %.1f", n,
			      n, e, mean, guard[g].bound);
		/* 0: no centers bound (13×13, 17×17, 23×23) */
		ck_assert_msg(guard[g].centers == 0 ||
				      centers <= guard[g].centers,
			      "%dx%d effort %d: centers mean %.1f moves, guard "
			      "%.1f",
			      n, n, e, centers, guard[g].centers);
		ck_assert_msg(edges <= guard[g].edges,
			      "%dx%d effort %d: edges mean %.1f moves, guard "
			      "%.1f",
			      n, n, e, edges, guard[g].edges);
	}
}
END_TEST

/* Center stickers of colour a or b (b < 0: a only) that are not on face
 * fa or fb (fb < 0: fa only); every center when the faces are -1. */
static int centers_off(const cube_t *c, int a, int b, int fa, int fb)
{
	int n = c->n, off = 0;
	for (int f = 0; f < 6; f++)
		for (int r = 1; r < n - 1; r++)
			for (int k = 1; k < n - 1; k++) {
				int v = cube_get(c, f, r, k);
				if ((v == a || v == b) && f != fa && f != fb)
					off++;
			}
	return off;
}

/* The staged centers of 5×5 (odd n: the middle centers are the frame,
 * and no step turns them) reach each step's goal exactly: after the
 * oll_parity stage and step 1 every center of one pair of opposite
 * colours sits on that pair of faces; after step 2 a second pair too;
 * after step 3 one pair's stickers each on their own face; after step 4
 * every center solved. The steps' moves are the whole centers stage.
 * States from..to-1 of three: the first every day, the others in the
 * slow case. */
static void staged_steps_run(int from, int to)
{
	for (int k = from; k < to; k++) {
		cube_t *c = random_cube(5, 4200u + (unsigned)k);
		struct solved s = solve_checked(c);
		const int *st = s.res.center_steps;
		ck_assert_int_gt(st[0], 0);
		ck_assert_int_gt(st[1], 0);
		ck_assert_int_eq(st[0] + st[1] + st[2] + st[3],
				 s.res.stage[REDUCE_CENTERS].count);
		cube_t *d = new_cube(5);
		cube_copy(d, c);
		int mid[6];
		for (int f = 0; f < 6; f++)
			mid[f] = cube_get(c, f, 2, 2);
		size_t at = (size_t)s.res.stage[REDUCE_CENTERS].start;
		REQUIRE(cube_apply_moves(d, s.moves, at) == CUBE_OK);
		int staged[3];
		for (int step = 0; step < 4; step++) {
			REQUIRE(cube_apply_moves(d, s.moves + at,
						 (size_t)st[step]) == CUBE_OK);
			at += (size_t)st[step];
			/* opposite faces: f and f + 3 (U R F D L B) */
			int pairs = 0, own = 0;
			for (int f = 0; f < 3; f++) {
				staged[f] = centers_off(d, mid[f], mid[f + 3],
							f, f + 3) == 0;
				pairs += staged[f];
				own += staged[f] &&
				       centers_off(d, mid[f], -1, f, -1) == 0 &&
				       centers_off(d, mid[f + 3], -1, f + 3,
						   -1) == 0;
			}
			if (step == 0)
				ck_assert_int_ge(pairs, 1);
			else if (step == 1)
				ck_assert_int_eq(pairs, 3);
			else if (step == 2)
				ck_assert_int_ge(own, 1);
			else
				ck_assert_int_eq(own, 3);
		}
		free(d);
		free(s.moves);
		free(c);
	}
}

START_TEST(staged_centers_steps)
{
	staged_steps_run(0, 1);
}
END_TEST

START_TEST(staged_centers_steps_more)
{
	staged_steps_run(1, 3);
}
END_TEST

/* Border stickers of face f off the colour of their line (each side's
 * n-2 stickers between the corners): 0 when every edge along f is paired. */
static int edges_unpaired(const cube_t *c, int f)
{
	int n = c->n, m = n - 1, off = 0;
	for (int k = 1; k < m; k++) {
		off += cube_get(c, f, 0, k) != cube_get(c, f, 0, 1);
		off += cube_get(c, f, m, k) != cube_get(c, f, m, 1);
		off += cube_get(c, f, k, 0) != cube_get(c, f, 1, 0);
		off += cube_get(c, f, k, m) != cube_get(c, f, 1, m);
	}
	return off;
}

/* The edges stage's goal, on random states (5×5 most, where the edge beam
 * pairs midges and wings; every size it runs on; the first states of each
 * size every day, the others in the slow case): after it, every center
 * still solved and all twelve edges paired, every wing beside its own
 * midge or partner, whatever the 3×3 left to do. */
static void edges_pairs_run(int slow)
{
	static const struct {
		int n, states, everyday;
	} sizes[] = {{5, 10, 1}, {4, 2, 1}, {6, 2, 1}, {7, 2, 0}, {8, 2, 0}};
	for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
		for (int k = slow ? sizes[z].everyday : 0;
		     k < (slow ? sizes[z].states : sizes[z].everyday); k++) {
			int n = sizes[z].n;
			cube_t *c = random_cube(n, 5300u + 100u * (unsigned)n +
						       (unsigned)k);
			struct solved s = solve_checked(c);
			cube_t *d = new_cube(n);
			cube_copy(d, c);
			const reduce_stage *e = &s.res.stage[REDUCE_EDGES];
			REQUIRE(cube_apply_moves(d, s.moves,
						 (size_t)(e->start + e->count)) ==
				CUBE_OK);
			ck_assert_int_gt(e->count, 0);
			for (int f = 0; f < 6; f++) {
				ck_assert_msg(centers_off(d, cube_get(d, f, 1, 1),
							  -1, f, -1) == 0,
					      "n=%d state %d: face %d centers", n,
					      k, f);
				ck_assert_msg(edges_unpaired(d, f) == 0,
					      "n=%d state %d: face %d edges", n, k,
					      f);
			}
			free(d);
			free(s.moves);
			free(c);
		}
}

/* The n×n random state from seed solved at effort (every answer
 * applied and checked by solve_effort) in at most moves moves (STM),
 * its centers in at most centers. */
static void within_bounds(int n, unsigned seed, int effort, int moves,
			  int centers)
{
	cube_t *c = random_cube(n, seed);
	struct solved s = solve_effort(c, stage, effort);
	alg_metrics am;
	moves_metrics(s.moves, (size_t)s.count, n, &am);
	ck_assert_msg((int)am.stm <= moves,
		      "%dx%d seed %u effort %d: %d moves, bound %d", n, n,
		      seed, effort, (int)am.stm, moves);
	ck_assert_msg(s.res.stage[REDUCE_CENTERS].count <= centers,
		      "%dx%d seed %u effort %d: centers %d moves, bound %d", n,
		      n, seed, effort, s.res.stage[REDUCE_CENTERS].count,
		      centers);
	free(s.moves);
	free(c);
}

/* 9×9's bar step tries its 4 cheapest answers against the ring's next
 * bar step at the default effort (reduce.c, bartrials_at, BARTRIALS_9;
 * 8 at effort 2 and 3). Over the 60 states from seed 7806 4 trials take
 * 381.57 moves on average, 1 383.47 (8 379.75); on these two with 1
 * 409 and 387 moves (centers 273, 251), with 4 386 and 369 (centers
 * 259, 244). Their bounds sit between, so dropping the trials fails
 * here. Each answer is applied and checked by solve_effort. */
START_TEST(bar_trials_9)
{
	within_bounds(9, 7845, 0, 397, 266);
	within_bounds(9, 7814, 0, 378, 247);
}
END_TEST

/* At effort 2 and 3, 10×10 to 12×12 try the bar step's 8 cheapest
 * answers against the ring's next bar step too, as 9×9 does at every
 * effort (reduce.c, bartrials_at). On these two 10×10 states effort 2
 * takes 494 and 487 moves (centers 352, 342) with the trials, 548 and
 * 507 (centers 366, 362) without; the bounds sit between, so dropping
 * them fails here. (A solve's length swings by tens of moves either
 * way with them; over 30 bench states the mean went 516.27 → 509.03.)
 * Each answer is applied and checked by solve_effort. Under the
 * sanitizers (three and a half minutes for the two) the first only. */
START_TEST(bar_trials_effort)
{
	within_bounds(10, 8000, 2, 520, 359);
	if (!SANITIZED)
		within_bounds(10, 8010, 2, 497, 352);
}
END_TEST

/* A bar step whose beam dies short of every oblique (no macro pairs
 * more from any state it kept) makes the state with the most paired it
 * met (centers_bars.c, bar_partial), and the steps after it still run.
 * Before, such a step made nothing, the ring's other bar steps failed
 * too, and the oblique macros and 3-cycles paired all its obliques (on
 * the three states this test held then, centers 506, 504 and 459 moves
 * where 389, 381 and 379 after). Since the bars' blocks (2026-11-27) a
 * beam dies on about one 10×10 in 100 (10 of the 1,100 states from
 * seed 91000); on these three (centers 375, 399 and 361): ring 1's
 * second step stops at 46 of 48; ring 1's first stops at 44, its
 * second's model then says done while the cube is not (a broken bar
 * reads differently from face to face), which must not fail the solve
 * (made to fail there, the solve ends in stage_failed), and its third
 * stops at 46; ring 2's first stops at 44. Each answer is applied and
 * checked. */
START_TEST(bar_beam_dies)
{
	/* and the steps that stopped short, counted in the result
	 * (bar_steps_short), so that the test fails once these states no
	 * longer take this path (the three it held before the blocks did
	 * not) */
	static const struct {
		unsigned seed;
		int short_steps;
	} t[] = {{91740, 1}, {91986, 3}, {91295, 1}};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		cube_t *c = random_cube(10, t[i].seed);
		struct solved s = solve_effort(c, stage, 0);
		ck_assert_int_le(s.res.stage[REDUCE_CENTERS].count, 420);
		ck_assert_int_le(s.count, 600);
		ck_assert_msg(s.res.bar_steps_short == t[i].short_steps,
			      "10x10 seed %u: %d bar steps short, want %d",
			      t[i].seed, s.res.bar_steps_short,
			      t[i].short_steps);
		free(s.moves);
		free(c);
	}
}
END_TEST

/* The bars' twins (centers_bars.c, bar_twin): from 11×11 on, a bar
 * step's macros may turn the next cell's layer with their own, in as
 * many moves, so that the next step starts with more of its obliques
 * paired. Such macros must keep every ring inside solved: a step that
 * broke one would leave its model reading wrong, and a later step would
 * stop short (bar_steps_short) or fail its goal. Without the twins
 * these two states' centers take 457 and 719 moves (with them 430 and
 * 680): the bounds sit between. Under the sanitizers the 11×11 only. */
START_TEST(bar_twins)
{
	static const struct {
		int n;
		unsigned seed;
		int centers;
	} t[] = {{11, 2, 443}, {13, 4, 699}};
	for (size_t i = 0; i < (SANITIZED ? 1 : sizeof t / sizeof *t); i++) {
		cube_t *c = random_cube(t[i].n, t[i].seed);
		struct solved s = solve_effort(c, stage, 0);
		int centers = s.res.stage[REDUCE_CENTERS].count;
		ck_assert_int_gt(s.res.bar_twin_macros, 0);
		ck_assert_int_eq(s.res.bar_steps_short, 0);
		ck_assert_msg(centers <= t[i].centers,
			      "%dx%d seed %u: centers %d moves, bound %d",
			      t[i].n, t[i].n, t[i].seed, centers, t[i].centers);
		free(s.moves);
		free(c);
	}
	/* below 11×11 none */
	cube_t *c = random_cube(10, 91000);
	struct solved s = solve_effort(c, stage, 0);
	ck_assert_int_eq(s.res.bar_twin_macros, 0);
	free(s.moves);
	free(c);
}
END_TEST

/* After the edge beam, 9×9 to 12×12 try the half-edge pairing moves
 * S X S' (edges_halves.c, reduce__edge_halves). On these three 10×10 states
 * (the bench's 0, 2 and 9) the beam leaves the same 3-cycle in every
 * wing orbit, which the one-orbit 3-cycles made four times: edges 175,
 * 180 and 184 moves; one such move (with two, none and one face turns
 * of set-up) takes them to 140, 140 and 147. The bounds sit between,
 * so this fails without it. Each answer is applied and checked by
 * solve_effort. */
START_TEST(edge_halves)
{
	static const struct {
		unsigned seed;
		int edges;
	} t[] = {{91000, 155}, {91002, 155}, {91009, 160}};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		cube_t *c = random_cube(10, t[i].seed);
		struct solved s = solve_effort(c, stage, 0);
		ck_assert_msg(s.res.stage[REDUCE_EDGES].count <= t[i].edges,
			      "10x10 seed %u: edges %d moves, bound %d",
			      t[i].seed, s.res.stage[REDUCE_EDGES].count,
			      t[i].edges);
		free(s.moves);
		free(c);
	}
}
END_TEST

/* Wing orbits that need the same 3-cycles (edges_wings.c,
 * reduce__pair_all): after the edge beam and the multi-orbit
 * commutators, neighbouring orbits often hold the same leftover (whole
 * half edges out of place), which the one-orbit 3-cycles made once per
 * orbit. Made once for them all, each layer of the model turned as the
 * block of theirs, these states' edges took 165, 182 and 229 moves
 * before and take 135, 160 and 193; wing_orbits_shared counts the
 * orbits made with a lower one. The bounds sit between, so this fails
 * without it. Each answer is applied and checked by solve_effort. */
START_TEST(wing_orbits_together)
{
	static const struct {
		int n;
		unsigned seed;
		int shared, edges;
	} t[] = {{10, 91016, 3, 150}, {11, 91007, 2, 170}, {12, 91023, 3, 210}};
	for (size_t i = 0; i < (SANITIZED ? 1 : sizeof t / sizeof *t); i++) {
		cube_t *c = random_cube(t[i].n, t[i].seed);
		struct solved s = solve_effort(c, stage, 0);
		int edges = s.res.stage[REDUCE_EDGES].count;
		ck_assert_msg(s.res.wing_orbits_shared == t[i].shared,
			      "%dx%d seed %u: %d orbits shared, want %d",
			      t[i].n, t[i].n, t[i].seed,
			      s.res.wing_orbits_shared, t[i].shared);
		ck_assert_msg(edges <= t[i].edges,
			      "%dx%d seed %u: edges %d moves, bound %d",
			      t[i].n, t[i].n, t[i].seed, edges, t[i].edges);
		free(s.moves);
		free(c);
	}
	/* a state whose orbits each need their own: none shared */
	cube_t *c = random_cube(10, 91001);
	struct solved s = solve_effort(c, stage, 0);
	ck_assert_int_eq(s.res.wing_orbits_shared, 0);
	free(s.moves);
	free(c);
}
END_TEST

/* The 3×3 stage's free turns (reduced3x3.c): on these two 6×6 states
 * the stage before the 3×3 ends with a half turn of a block next to a
 * face (layers 2-4 of y, 1-3 of x, counted from 0), which takes that
 * face's half turn into it for nothing (layers 2-5, 0-3), and two-phase
 * solves the cube after it in 18 moves where the cube without it took
 * 19 (153 moves in all). Without the free turns the moves before the
 * 3×3 stay as they were and this fails. */
START_TEST(free_turn_3x3)
{
	static const struct {
		unsigned seed;
		cube_move before; /* the last move before the 3×3 stage */
	} st[] = {{7900, {CUBE_Y, 2, 2, 5}}, {7903, {CUBE_X, 2, 0, 3}}};
	for (size_t i = 0; i < sizeof st / sizeof *st; i++) {
		cube_t *c = random_cube(6, st[i].seed);
		struct solved s = solve_effort(c, stage, 0);
		const reduce_stage *t = &s.res.stage[REDUCE_3X3];
		ck_assert_int_gt(t->start, 0);
		cube_move p = s.moves[t->start - 1], w = st[i].before;
		ck_assert_msg(p.axis == w.axis && p.qt == w.qt && p.lo == w.lo &&
				      p.hi == w.hi,
			      "seed %u: the move before the 3x3 turns axis %d "
			      "layers %d-%d by %d",
			      st[i].seed, p.axis, p.lo, p.hi, p.qt);
		ck_assert_int_eq(t->count, 18);
		alg_metrics am;
		moves_metrics(s.moves, (size_t)s.count, 6, &am);
		ck_assert_msg((int)am.stm <= 152, "seed %u: %d moves",
			      st[i].seed, (int)am.stm);
		free(s.moves);
		free(c);
	}
}
END_TEST

START_TEST(edges_stage_pairs_all)
{
	edges_pairs_run(0);
}
END_TEST

START_TEST(edges_stage_pairs_more)
{
	edges_pairs_run(1);
}
END_TEST

/* The staged-center tables built once (reduce_stage_tables_build) give
 * the very answers each solve gets building its own, size by size (4×4
 * and 5×5 every day, 6×6 to 9×9 in the slow case: each kind of table);
 * tables not made by it are refused; the build's own errors and poll. */
static void shared_tables_run(const int *sizes, size_t nsizes, int errors)
{
	size_t ts = reduce_stage_tables_size(),
	       sws = reduce_stage_tables_work_size();
	unsigned char *st = malloc(ts);
	void *swork = malloc(sws);
	REQUIRE(st && swork && ts > 1000000 && sws >= reduce_work_size(7));
	int calls = 0;
	reduce_limits stop = {.poll = stop_at_once, .ctx = &calls};
	if (errors) {
		ck_assert_int_eq(reduce_stage_tables_build(st, ts, swork, sws,
							   &stop),
				 SOLVE_ENOTFOUND);
		ck_assert_int_eq(calls, 1);
		ck_assert_int_eq(reduce_stage_tables_build(st, ts - 1, swork, sws,
							   NULL),
				 CUBE_EINVAL);
		ck_assert_int_eq(reduce_stage_tables_build(st, ts, swork, sws - 1,
							   NULL),
				 CUBE_EINVAL);
		ck_assert_int_eq(reduce_stage_tables_build(NULL, ts, swork, sws,
							   NULL),
				 CUBE_EINVAL);
	}
	ck_assert_int_eq(reduce_stage_tables_build(st, ts, swork, sws, NULL), 0);
	free(swork);

	reduce_limits lim = {.stage_tables = st};
	for (size_t i = 0; i < nsizes; i++) {
		int n = sizes[i];
		cube_t *c = random_cube(n, 6100u + (unsigned)n);
		struct solved own = solve_with(c, NULL);
		size_t ws = reduce_work_size(n), cap = reduce_max_moves(n);
		void *work = malloc(ws);
		cube_move *m = malloc(cap * sizeof *m);
		reduce_result res;
		REQUIRE(work && m);
		int k = reduce_solve(tables, c, &lim, work, ws, m, cap, &res);
		ck_assert_msg(k == own.count, "n=%d: %d moves shared, %d own", n,
			      k, own.count);
		ck_assert_int_eq(memcmp(m, own.moves, (size_t)k * sizeof *m), 0);
		if (n == 4) {
			/* a byte off in the header: not these tables */
			st[0] ^= 1;
			ck_assert_int_eq(reduce_solve(tables, c, &lim, work, ws,
						      m, cap, &res),
					 SOLVE_ETABLES);
			st[0] ^= 1;
		}
		free(m);
		free(work);
		free(own.moves);
		free(c);
	}
	free(st);
}

START_TEST(shared_stage_tables)
{
	static const int sizes[] = {4, 5};
	shared_tables_run(sizes, sizeof sizes / sizeof *sizes, 1);
}
END_TEST

/* The polls of a build: each part's (done, total), and never stop. */
struct progress {
	int calls;
	uint64_t done[16], total[16];
};

static int note_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	if (total && p->calls < 16) {
		p->done[p->calls] = done;
		p->total[p->calls++] = total;
	}
	return 0;
}

/* The tables a server caches on disk (cubed-tables-nxn.bin): the same
 * bytes whatever the buffers held before (so a file's checksum means
 * something), passing reduce_stage_tables_check, which refuses any
 * other bytes, size or header; their checksum the one the format
 * version is made from (centers_methods.h: a change to what they hold must
 * set it anew, or a server would load an older build's file). The
 * build reports its parts done. */
START_TEST(stage_tables_cache)
{
	size_t ts = reduce_stage_tables_size(),
	       sws = reduce_stage_tables_work_size();
	unsigned char *a = malloc(ts), *b = malloc(ts);
	void *work = malloc(sws);
	REQUIRE(a && b && work);
	memset(a, 0x3c, ts);
	memset(work, 0xc3, sws);
	ck_assert_int_eq(reduce_stage_tables_build(a, ts, work, sws, NULL), 0);
	memset(b, 0xa5, ts);
	memset(work, 0x5a, sws);
	struct progress pr = {0};
	reduce_limits lim = {.poll = note_progress, .ctx = &pr};
	ck_assert_int_eq(reduce_stage_tables_build(b, ts, work, sws, &lim), 0);
	free(work);
	ck_assert_msg(memcmp(a, b, ts) == 0,
		      "two builds differ: the tables hold bytes the build "
		      "did not set");
	/* 4 kinds of size, then the bars' macros */
	ck_assert_int_eq(pr.calls, 5);
	for (int k = 0; k < pr.calls; k++) {
		ck_assert_uint_eq(pr.done[k], (uint64_t)k);
		ck_assert_uint_eq(pr.total[k], 5);
	}
	ck_assert_int_eq(reduce_stage_tables_check(a, ts), CUBE_OK);
	ck_assert_msg(solve__sum(a) == REDUCE_STAGE_TABLES_SUM,
		      "the tables changed: set REDUCE_STAGE_TABLES_SUM in "
		      "core/reduce/centers_methods.h to 0x%016llxull (their checksum "
		      "now), so that servers build them anew rather than load "
		      "an older build's file",
		      (unsigned long long)solve__sum(a));
	/* any other bytes: a flipped bit in the last kind's tables, in the
	 * bars' macros, in the header's version; another size; none */
	size_t at[] = {ts / 3, ts - 1, 8};
	for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
		b[at[i]] ^= 0x10;
		ck_assert_msg(reduce_stage_tables_check(b, ts) == SOLVE_ETABLES,
			      "byte %zu flipped: passed", at[i]);
		b[at[i]] ^= 0x10;
	}
	ck_assert_int_eq(reduce_stage_tables_check(b, ts), CUBE_OK);
	ck_assert_int_eq(reduce_stage_tables_check(b, ts - 1), SOLVE_ETABLES);
	ck_assert_int_eq(reduce_stage_tables_check(NULL, ts), SOLVE_ETABLES);
	free(a);
	free(b);
}
END_TEST

/* the sizes past them (each solve that builds its own tables takes a
 * second or two): the slow case */
START_TEST(shared_stage_tables_larger)
{
	static const int sizes[] = {6, 7, 8, 9};
	shared_tables_run(sizes, sizeof sizes / sizeof *sizes, 0);
}
END_TEST

/* FNV-1a over the moves' fields: one number that changes with any move. */
static uint64_t moves_hash(const cube_move *m, int count)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < count; i++) {
		const unsigned b[6] = {m[i].axis, m[i].qt, m[i].lo & 255u,
				       m[i].lo >> 8, m[i].hi & 255u,
				       m[i].hi >> 8};
		for (int k = 0; k < 6; k++)
			h = (h ^ b[k]) * 1099511628211ull;
	}
	return h;
}

/* The answers to seeded random states of every size 4 to 12 and a few
 * larger (those past GOLDEN_EVERYDAY_N in the slow case: a 100×100 alone
 * takes seconds), move for move, as tests/golden/reduce_solutions.txt has them
 * (n, seed, moves, each stage's moves, a hash of the moves): a change
 * that should not change answers (a refactoring, a faster scan) is held
 * to that, and one that should shows where. With CUBED_GOLDEN_UPDATE=1
 * the test writes the file anew from today's answers instead (after a
 * change meant to change them; the diff then goes in its commit). */
static void golden_run(int large)
{
	struct golden_case *gc;
	int count = golden_load("reduce_solutions.txt", &gc);
	const char *upd = getenv("CUBED_GOLDEN_UPDATE");
	int update = upd && strcmp(upd, "1") == 0;
	FILE *out = NULL;
	/* the everyday part writes every line; the slow case must not
	 * open (and so empty) the file after it */
	if (large && update) { /* the everyday part wrote every line */
		golden_free(gc, count);
		return;
	}
	if (update) {
		const char *dir = getenv("CUBED_GOLDEN");
		char path[1024];
		snprintf(path, sizeof path, "%s/reduce_solutions.txt",
			 dir && *dir ? dir : "tests/golden");
		out = fopen(path, "w");
		REQUIRE(out);
		fprintf(out, "# reduce_solve's answers to seeded random states "
			     "(check_reduce.c, golden_solutions):\n# n\tseed\t"
			     "moves\toll_parity\tcenters\tedges\tpll_parity\t"
			     "3x3\tFNV-1a of the moves\n");
	}
	ck_assert_int_ge(count, 14);
	for (int i = 0; i < count; i++) {
		ck_assert_int_ge(gc[i].nfields, 2);
		int n = atoi(gc[i].field[0]);
		if (!update && (n > GOLDEN_EVERYDAY_N) != large)
			continue;
		unsigned seed = (unsigned)strtoul(gc[i].field[1], NULL, 10);
		cube_t *c = random_cube(n, seed);
		struct solved s = solve_checked(c);
		char line[256];
		int len = snprintf(line, sizeof line, "%d\t%u\t%d", n, seed,
				   s.count);
		for (int k = 0; k < REDUCE_STAGES; k++)
			len += snprintf(line + len, sizeof line - (size_t)len,
					"\t%d", s.res.stage[k].count);
		snprintf(line + len, sizeof line - (size_t)len, "\t%016llx",
			 (unsigned long long)moves_hash(s.moves, s.count));
		if (out) {
			fprintf(out, "%s\n", line);
		} else {
			/* the whole line as the file has it */
			char want[256];
			int w = 0;
			for (int f = 0; f < gc[i].nfields; f++)
				w += snprintf(want + w, sizeof want - (size_t)w,
					      "%s%s", f ? "\t" : "",
					      gc[i].field[f]);
			ck_assert_msg(strcmp(line, want) == 0,
				      "reduce_solutions.txt line %d:\n"
				      "  file:  %s\n  today: %s",
				      gc[i].line, want, line);
		}
		free(s.moves);
		free(c);
	}
	if (out)
		REQUIRE(fclose(out) == 0);
	golden_free(gc, count);
}

START_TEST(golden_solutions)
{
	golden_run(0);
}
END_TEST

START_TEST(golden_solutions_large)
{
	golden_run(1);
}
END_TEST

/* More effort: every answer verified as at the default (the work buffer
 * holds the most variants any effort runs), effort 1 the same as 0, and
 * each effort the same answer twice. */
/* Effort 3 past 72×72: the inside-out pass runs only when the caller's
 * budget holds it (REDUCE_INSIDE_MS_N2 per thousand n²; 0: no budget),
 * and a poll that stops it keeps the block commutators' answer.
 * 76×76, the bench's first state: inside out 40,484 moves, by the block
 * commutators' two passes about 62,000. */
START_TEST(effort3_inside_budget)
{
	int n = 76;
	cube_t *c = random_cube(n, 9100u * (unsigned)n);
	unsigned need = (unsigned)((REDUCE_INSIDE_MS_N2 * n * n + 999) / 1000);
	const unsigned budget[3] = {0, need, need - 1};
	int len[3];
	long polls = 0;
	for (int i = 0; i < 3; i++) {
		struct counted k = {0, 0};
		reduce_limits rl = {.stage_tables = stage, .effort = 3,
				    .budget_ms = budget[i],
				    .poll = count_polls, .ctx = &k};
		struct solved s = solve_rl(c, &rl);
		len[i] = s.count;
		polls = k.calls;
		free(s.moves);
	}
	ck_assert_msg(len[0] <= 41000, "no budget: %d moves", len[0]);
	ck_assert_int_eq(len[1], len[0]);
	ck_assert_msg(len[2] >= 55000, "budget %u ms: %d moves", budget[2],
		      len[2]);
	/* stopped as many polls in as the two passes and the last 3×3
	 * search take without the third: inside that pass (it polls once
	 * a beam level, thousands of times), so the first two passes'
	 * answer, its 3×3 search cut short */
	struct counted k = {0, polls};
	reduce_limits rl = {.stage_tables = stage, .effort = 3,
			    .poll = count_polls, .ctx = &k};
	struct solved s = solve_rl(c, &rl);
	ck_assert_msg(s.count >= len[2] && s.count <= len[2] + 10,
		      "cut in the third pass: %d moves, the two passes %d",
		      s.count, len[2]);
	free(s.moves);
	free(c);
}
END_TEST

START_TEST(efforts)
{
	/* 36×36: effort 2 and 3 solve the centers inside out as up to
	 * 33×33, where the default takes slices and block commutators (the
	 * bench's first 36×36: 14,757 moves against 8,987); 26×26, an even
	 * n from 26 to 32 where the default goes inside out lean for time
	 * (plan.c, lean; the block commutators gave about 7,700 moves
	 * there): effort 2 and 3 search it wider; 72×72: the largest they
	 * solve inside out (STAGED_MORE_MAX_N), after the default's pass */
	static const int sizes[] = {4, 6, 9, 26, 36, 72};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		cube_t *c = random_cube(sizes[i], 6300u + (unsigned)i);
		struct solved d = solve_effort(c, stage, 0);
		struct solved one = solve_effort(c, stage, 1);
		ck_assert_int_eq(one.count, d.count);
		ck_assert_int_eq(memcmp(one.moves, d.moves,
					(size_t)d.count * sizeof *d.moves),
				 0);
		if (sizes[i] == 26) /* inside out at the default */
			ck_assert_msg(d.count < 26 * 26 * 15 / 2,
				      "26x26 default: %d moves", d.count);
		for (int e = 2; e <= REDUCE_MAX_EFFORT; e++) {
			struct solved a = solve_effort(c, stage, e),
				      b = solve_effort(c, stage, e);
			ck_assert_int_eq(a.count, b.count);
			ck_assert_int_eq(memcmp(a.moves, b.moves,
						(size_t)a.count * sizeof *a.moves),
					 0);
			if (sizes[i] == 26) /* wider than the default */
				ck_assert_msg(a.count < d.count,
					      "26x26 effort %d: %d moves, the "
					      "default %d",
					      e, a.count, d.count);
			if (sizes[i] > 33 && sizes[i] <= 64) /* inside out */
				ck_assert_msg(a.count < d.count * 7 / 10,
					      "%dx%d effort %d: %d moves, the "
					      "default %d",
					      sizes[i], sizes[i], e, a.count,
					      d.count);
			if (sizes[i] > 64) /* the effort reaches that stage */
				ck_assert(a.count != d.count ||
					  memcmp(a.moves, d.moves,
						 (size_t)a.count *
							 sizeof *a.moves) != 0);
			free(a.moves);
			free(b.moves);
		}
		free(one.moves);
		free(d.moves);
		free(c);
	}
}
END_TEST

/* The edge beam's width by size and effort (plan.c, eb_width): effort 2
 * and 3 widen it to EB_WMAX up to 12×12 and keep the default's width past
 * it, where 44 states a level took effort 3 past the server's 10 s
 * (13×13 9.2 s, 17×17 17.6 s, 20×20 28 s). Only time would show a change
 * to this otherwise, and timed tests are not wanted; so the rule itself is
 * pinned here, with the widths the bench measured. */
static int eb_width_at(int n, int effort, int first)
{
	struct reduce_plan p = reduce__plan(n, effort);
	return first ? p.eb_width_first : p.eb_width;
}

START_TEST(edge_beam_width_by_effort)
{
	ck_assert_int_eq(EB_WMAX, 44);
	for (int n = 4; n <= EB_MAX_N; n++)
		for (int first = 0; first <= 1; first++) {
			int d = eb_width_at(n, 1, first);
			ck_assert_int_eq(eb_width_at(n, 0, first), d);
			for (int e = 2; e <= REDUCE_MAX_EFFORT; e++)
				ck_assert_msg(eb_width_at(n, e, first) ==
						      (n <= 12 ? EB_WMAX : d),
					      "%dx%d effort %d first %d: %d",
					      n, n, e, first,
					      eb_width_at(n, e, first));
		}
	/* the defaults the bench chose (plan.c's notes) */
	ck_assert_int_eq(eb_width_at(5, 1, 0), 44);
	ck_assert_int_eq(eb_width_at(6, 1, 0), 16);
	ck_assert_int_eq(eb_width_at(7, 1, 0), 32);
	ck_assert_int_eq(eb_width_at(8, 1, 0), 44);
	ck_assert_int_eq(eb_width_at(9, 1, 1), 44);
	ck_assert_int_eq(eb_width_at(9, 1, 0), 32);
	ck_assert_int_eq(eb_width_at(10, 1, 0), 8);
	ck_assert_int_eq(eb_width_at(12, 1, 0), 2);
	ck_assert_int_eq(eb_width_at(13, 1, 0), 8);
	ck_assert_int_eq(eb_width_at(16, 1, 0), 1);
	ck_assert_int_eq(eb_width_at(19, 1, 0), 2);
	ck_assert_int_eq(eb_width_at(13, 3, 1), 8);
	ck_assert_int_eq(eb_width_at(20, 3, 0), 1);
}
END_TEST

/* Every size's plan (plan.c) by its rules: one center method for each
 * size and effort (the staged search up to the inside-out limit, 33×33 at
 * the default and 72×72 at effort 2 and 3, the block commutators past
 * it), the passes effort 2 and 3 add past 33×33, the edge methods, and the
 * counts the bench chose. A rule that moves fails here, not only in a
 * golden answer. */
START_TEST(plan_by_size)
{
	for (int n = REDUCE_MIN_N; n <= REDUCE_MAX_N; n++)
		for (int e = 1; e <= REDUCE_MAX_EFFORT; e++) {
			struct reduce_plan p = reduce__plan(n, e);
			int top = e == 1 ? 33 : 72;
			ck_assert_msg(p.n == n && p.effort == e, "%d %d", n, e);
			ck_assert_msg(p.staged == (n <= top) &&
					      p.blocks == !p.staged,
				      "%dx%d effort %d: staged %d blocks %d",
				      n, n, e, p.staged, p.blocks);
			ck_assert_int_eq(p.inside, n >= 6 && n <= top);
			ck_assert_int_eq(p.obliques, p.inside);
			ck_assert_int_eq(p.free_phase, n <= 12);
			ck_assert_int_eq(p.default_first,
					 e >= 2 && n > 33 && n <= 72);
			ck_assert_int_eq(p.inside_pass, e == 3 && n > 72);
			ck_assert_int_eq(p.eases, e >= 2 && n >= 8 && n <= 33);
			ck_assert_int_eq(p.edge_beam,
					 n <= 15 || (n % 2 ? n <= 33 : n <= 20));
			ck_assert_int_eq(p.edge_halves, p.edge_beam && n >= 9);
			ck_assert_int_eq(p.wing_comms, n >= 9);
			ck_assert_int_eq(p.edges_alt, n % 2 == 0 && n <= top);
			ck_assert_int_eq(p.blk_rows, e > 1 ? 4 : 2);
			ck_assert_int_eq(p.blk_thr_most != NULL,
					 e == 3 && n > top);
			ck_assert_int_eq(p.polls, 25 * e);
			ck_assert(p.bar_beam <= p.bar_beam_end &&
				  p.bar_beam_end <= PLAN_BAR_BEAM_MAX);
			ck_assert(p.eb_width >= 1 && p.eb_width <= EB_WMAX);
		}
	/* variants: n, effort, count */
	static const int var[][3] = {
		{4, 1, 20}, {5, 1, 5}, {6, 1, 3}, {7, 1, 3}, {8, 1, 1},
		{4, 2, 40}, {5, 3, 20}, {8, 2, 2}, {8, 3, 4}, {33, 3, 4},
		{34, 2, 2}, {72, 3, 2}, {73, 2, 1}, {73, 3, 2}, {128, 1, 1},
	};
	for (size_t i = 0; i < sizeof var / sizeof *var; i++)
		ck_assert_msg(reduce__plan(var[i][0], var[i][1]).variants ==
				      var[i][2],
			      "%dx%d effort %d", var[i][0], var[i][0],
			      var[i][1]);
	/* trials: n, effort, ctrials, btrials, bartrials, bartrial_ring */
	static const int tri[][6] = {
		{4, 1, 3, 1, 1, 0},  {7, 1, 3, 2, 1, 0},  {8, 1, 1, 2, 1, 0},
		{6, 2, 1, 2, 1, 0},  {9, 1, 1, 2, 4, 0},  {9, 2, 1, 2, 8, 0},
		{10, 1, 1, 1, 1, 1}, {10, 2, 1, 1, 8, 0}, {12, 3, 1, 1, 8, 0},
		{13, 2, 1, 1, 1, 0},
	};
	for (size_t i = 0; i < sizeof tri / sizeof *tri; i++) {
		struct reduce_plan p = reduce__plan(tri[i][0], tri[i][1]);
		ck_assert_msg(p.ctrials == tri[i][2] && p.btrials == tri[i][3] &&
				      p.bartrials == tri[i][4] &&
				      p.bartrial_ring == tri[i][5],
			      "%dx%d effort %d", tri[i][0], tri[i][0],
			      tri[i][1]);
	}
	/* the lean sizes (even from 22, odd from 27, not 31) at the
	 * default: the staged steps' budget and the bars' cap */
	static const int lean[][3] = {
		{21, 1, 0}, {22, 1, 1}, {25, 1, 0}, {27, 1, 1},
		{31, 1, 0}, {33, 1, 1}, {22, 2, 0},
	};
	for (size_t i = 0; i < sizeof lean / sizeof *lean; i++) {
		struct reduce_plan p = reduce__plan(lean[i][0], lean[i][1]);
		ck_assert_int_eq(p.st_budget == 100, lean[i][2]);
		ck_assert_int_eq(p.bar_cap > 0, lean[i][2]);
	}
	/* the variants' table: the first is the one measured best alone */
	struct reduce_variant v0 = reduce__variant(0);
	ck_assert(v0.c_num == 1 && v0.c_den == 3 && v0.frame == 0 &&
		  v0.rot == 0);
	for (int v = 0; v < 64; v++) {
		struct reduce_variant r = reduce__variant(v);
		ck_assert(r.frame >= 0 && r.frame < 24 && r.rot >= 0 &&
			  r.rot < 24 && r.c_num > 0 && r.c_den > r.c_num);
	}
}
END_TEST

/* The bars' scan runs uninstrumented in the sanitized build
 * (REDUCE_UNSANITIZED, core/reduce/internal.h: it was most of the sanitized
 * suites' time): what it indexes in the macros every big-cube solve
 * shares is checked here instead, and a damaged copy is caught. */
size_t reduce__bar_macs_size(void);
long reduce__bar_macs_bad(const void *macs);

START_TEST(bar_scan_bounds)
{
	size_t size = reduce__bar_macs_size();
	const unsigned char *macs =
		(const unsigned char *)stage + reduce_stage_tables_size() - size;
	ck_assert_int_eq(reduce__bar_macs_bad(macs), 0);
	unsigned char *bad = malloc(size);
	ck_assert_ptr_nonnull(bad);
	memcpy(bad, macs, size);
	memset(bad + size / 2, 0xff, size - size / 2); /* the 6×6's */
	ck_assert_int_eq(reduce__bar_macs_bad(bad), 1);
	free(bad);
}
END_TEST

/* The same state gives the same answer (no hidden state between calls). */
START_TEST(deterministic)
{
	cube_t *c = random_cube(5, 11);
	struct solved a = solve_checked(c), b = solve_checked(c);
	ck_assert_int_eq(a.count, b.count);
	ck_assert_int_eq(memcmp(a.moves, b.moves,
				(size_t)a.count * sizeof *a.moves),
			 0);
	free(a.moves);
	free(b.moves);
	free(c);
}
END_TEST


/* ---- 4×4 in three phases (core/reduce/four.c) --------------------------- */

long reduce__four_census(const void *tables, int which, long counts[16]);

static unsigned char *four;

static void load_four(void)
{
	load_tables();
	if (!four)
		four = solver_tables_four_cached("check_reduce");
}

/* The tables hold what the breadth-first counts say (docs/solvers.md,
 * "4×4 in three phases"): each table's states by depth. */
START_TEST(four_tables_census)
{
	static const long want[5][16] = {
		/* phase 1: the U/D pieces' places, every turn */
		{1, 6, 166, 3322, 47364, 332300, 344832, 7480},
		/* phase 2's centres from the 12 goals */
		{12, 76, 868, 8064, 59524, 268548, 466464, 96192, 1152},
		/* phase 2's wings and parity */
		{1, 9, 146, 2666, 38610, 492986, 2985629, 1883435, 4830},
		/* phase 3's centres: 58,800 = 12 · 70 · 70 */
		{1, 9, 140, 1278, 5616, 12928, 16740, 14056, 7008, 1024},
		/* the pairing: depth mod 3 to 9, then "10 or more" */
		{69588599, 1372997, 11018798, 0, 0, 0, 0, 0, 0, 0, 397021206},
	};
	static const long total[5] = {735471, 900900, 5408312, 58800,
				      479001600};
	for (int k = 0; k < 5; k++) {
		long got[16];
		ck_assert_int_eq(reduce__four_census(four, k, got), total[k]);
		for (int d = 0; d < 16; d++)
			ck_assert_msg(got[d] == want[k][d],
				      "table %d depth %d: %ld, want %ld", k, d,
				      got[d], want[k][d]);
	}
	ck_assert_int_eq(reduce_four_tables_check(four,
						  reduce_four_tables_size()),
			 CUBE_OK);
}
END_TEST

/* Seeded 4×4s through the three phases: every answer applied (as moves
 * and as text, solve_opts), no parity stage, the reduction in the
 * centers and edges stages, and the mean under TPR-4x4x4's published
 * 44.6 (measured 43.0 on these 20: bench/RESULTS.md). */
START_TEST(four_random)
{
	int sum = 0, count = 20;
	for (int k = 0; k < count; k++) {
		cube_t *c = random_cube(4, 9100u * 4u + (unsigned)k);
		struct solved s = solve_opts(c, stage, 0, four);
		ck_assert_int_eq(s.res.stage[REDUCE_OLL_PARITY].count, 0);
		ck_assert_int_eq(s.res.stage[REDUCE_PLL_PARITY].count, 0);
		ck_assert_int_eq(s.res.oll_parity, 0);
		ck_assert_int_eq(s.res.pll_parity, 0);
		/* the three phases, not the stage-by-stage path (whose
		 * staged centers fill center_steps) */
		for (int j = 0; j < 4; j++)
			ck_assert_int_eq(s.res.center_steps[j], 0);
		ck_assert_int_le(s.res.stage[REDUCE_CENTERS].count, 16);
		ck_assert_int_le(s.res.stage[REDUCE_EDGES].count, 16);
		sum += s.count;
		free(s.moves);
		free(c);
	}
	ck_assert_msg(sum <= 44 * count, "mean %.2f over %d", (double)sum / count,
		      count);
}
END_TEST

/* The parity cases: a seeded state the stage-by-stage path solves with
 * an OLL parity stage and one without both go through the three phases
 * with no parity stage (phase 2 evens the wings; the PLL parity, which
 * that path mostly avoids by its choice of edges, is phase 3's own
 * coordinate, so four_random's states meet it either way), each answer
 * checked. The hand-made single-dedge cases (a
 * solved cube but for one flipped or two swapped dedges) are solved and
 * checked too: their phase 2 can outrun its budget (the flip alone
 * needs the wing parity changed with the centres kept), and the solve
 * then takes the stage-by-stage path, as it does here. */
START_TEST(four_parities)
{
	int seen[2] = {0}, count = 0;
	for (unsigned k = 0; k < 40 && count < 2; k++) {
		cube_t *c = random_cube(4, 31000u + k);
		struct solved old = solve_with(c, stage);
		int o = old.res.oll_parity != 0;
		free(old.moves);
		if (seen[o]) {
			free(c);
			continue;
		}
		seen[o] = 1;
		count++;
		struct solved s = solve_opts(c, stage, 0, four);
		ck_assert_int_eq(s.res.stage[REDUCE_OLL_PARITY].count, 0);
		ck_assert_int_eq(s.res.stage[REDUCE_PLL_PARITY].count, 0);
		ck_assert_int_eq(s.res.oll_parity, 0);
		ck_assert_int_eq(s.res.pll_parity, 0);
		for (int j = 0; j < 4; j++)
			ck_assert_int_eq(s.res.center_steps[j], 0);
		free(s.moves);
		free(c);
	}
	ck_assert_int_eq(count, 2);
	cube_t *c = new_cube(4);
	struct solved s = solve_opts(c, stage, 0, four);
	ck_assert_int_eq(s.count, 0);
	free(s.moves);
	for (int v = 0; v < 3; v++) {
		cube_init(c, 4);
		if (v != 0)
			swap_uf_ub(c);
		if (v != 1)
			flip_uf(c, 1);
		s = solve_opts(c, stage, 0, four);
		ck_assert_int_gt(s.count, 0);
		free(s.moves);
	}
	free(c);
}
END_TEST

/* A caller's poll reaches into the phase searches: every 65,536 nodes
 * of phase 2 and of phase 3 (done the phase's nodes, a multiple of
 * 65,536; total its budget, one for each phase), so a deadline or a
 * cancelled request stops a 4×4 within that much work wherever it is
 * (before, phase 3 ran up to 4.5 M nodes, about 2 s, without asking). A
 * stop there ends the solve with SOLVE_ENOTFOUND at once: no answer, no
 * further poll. */
struct four_poll {
	int calls, deep, stop_at, after_stop;
	int second_at;      /* the call that was the second from a search */
	uint64_t totals[2]; /* the budgets seen, in order */
	uint64_t bad;       /* a done that breaks the law, else 0 */
};

static int four_poll_fn(void *ctx, uint64_t done, uint64_t total)
{
	struct four_poll *p = ctx;
	if (p->stop_at && p->calls >= p->stop_at) {
		p->after_stop++;
		return 1;
	}
	p->calls++;
	if (done) {
		if (++p->deep == 2)
			p->second_at = p->calls;
		if (done % 65536 || done > total)
			p->bad = done;
		if (!p->totals[0] || p->totals[0] == total)
			p->totals[0] = total;
		else
			p->totals[1] = total;
	}
	return p->stop_at && p->calls == p->stop_at;
}

START_TEST(four_polls)
{
	size_t ws = reduce_work_size(4), cap = reduce_max_moves(4);
	void *work = malloc(ws);
	cube_move *mv = malloc(cap * sizeof *mv);
	REQUIRE(work && mv);
	reduce_result res;
	int both = 0, stopped = 0;
	for (unsigned k = 0; k < 6; k++) {
		cube_t *c = random_cube(4, 9100u * 4u + k);
		struct four_poll p = {0};
		reduce_limits rl = {.stage_tables = stage, .four_tables = four,
				    .poll = four_poll_fn, .ctx = &p};
		ck_assert_int_ge(reduce_solve(tables, c, &rl, work, ws, mv, cap,
					      &res),
				 0);
		ck_assert_msg(p.bad == 0, "state %u: polled at %llu nodes", k,
			      (unsigned long long)p.bad);
		/* asked from both phases (two budgets) */
		both += p.totals[1] != 0;
		if (p.deep >= 2 && !stopped) {
			/* stopped at its second ask from inside a search */
			struct four_poll q = {.stop_at = p.second_at};
			rl.ctx = &q;
			ck_assert_int_eq(reduce_solve(tables, c, &rl, work, ws,
						      mv, cap, &res),
					 SOLVE_ENOTFOUND);
			ck_assert_int_eq(q.deep, 2);
			ck_assert_int_eq(q.calls, p.second_at);
			ck_assert_int_eq(q.after_stop, 0);
			stopped = 1;
		}
		free(c);
	}
	ck_assert_int_gt(both, 0);
	ck_assert_int_eq(stopped, 1);
	free(work);
	free(mv);
}
END_TEST

/* Effort 2 tries frame 0 as the default does, and more: never longer. */
START_TEST(four_effort)
{
	for (int k = 0; k < 3; k++) {
		cube_t *c = random_cube(4, 777u + (unsigned)k);
		struct solved a = solve_opts(c, stage, 0, four);
		struct solved b = solve_opts(c, stage, 2, four);
		ck_assert_int_le(b.count, a.count);
		free(a.moves);
		free(b.moves);
		free(c);
	}
}
END_TEST

/* Phase tables (size n's: 4 or 5) not made by their build are refused:
 * a solve gets SOLVE_ETABLES; check finds a flipped byte; the build
 * refuses short buffers; the other size (other) ignores them. */
typedef int (*tables_build_fn)(void *, size_t, void *, size_t,
			       const reduce_limits *);
static void bad_phase_tables(int n, const unsigned char *good, size_t size,
			     int (*check)(const void *, size_t),
			     tables_build_fn build, size_t build_ws, int other)
{
	unsigned char *bad = malloc(size);
	REQUIRE(bad);
	memcpy(bad, good, size);
	bad[size / 2] ^= 1;
	ck_assert_int_eq(check(bad, size), SOLVE_ETABLES);
	ck_assert_int_eq(check(good, size - 1), SOLVE_ETABLES);
	bad[0] ^= 1; /* the header: a solve checks only that */
	reduce_limits rl = {.four_tables = n == 4 ? bad : NULL,
			    .five_tables = n == 5 ? bad : NULL};
	const int sizes[2] = {n, other};
	for (int i = 0; i < 2; i++) {
		int m = sizes[i];
		cube_t *c = random_cube(m, 5);
		size_t ws = reduce_work_size(m), cap = reduce_max_moves(m);
		void *work = malloc(ws);
		cube_move *out = malloc(cap * sizeof *out);
		REQUIRE(work && out);
		reduce_result res;
		int k = reduce_solve(tables, c, &rl, work, ws, out, cap, &res);
		if (m == n)
			ck_assert_int_eq(k, SOLVE_ETABLES);
		else
			ck_assert_int_gt(k, 0);
		free(work);
		free(out);
		free(c);
	}
	void *bwork = malloc(build_ws);
	REQUIRE(bwork);
	ck_assert_int_eq(build(bad, size - 1, bwork, build_ws, NULL),
			 CUBE_EINVAL);
	ck_assert_int_eq(build(bad, size, bwork, 10, NULL), CUBE_EINVAL);
	free(bwork);
	free(bad);
}

START_TEST(four_bad_tables)
{
	bad_phase_tables(4, four, reduce_four_tables_size(),
			 reduce_four_tables_check, reduce_four_tables_build,
			 reduce_four_tables_work_size(), 5);
}
END_TEST

/* ---- 5×5 in five phases (core/reduce/five.c, five45.c) ------------------- */

long reduce__five_census(const void *tables, int which, long counts[16]);

static unsigned char *five;

static void load_five(void)
{
	load_tables();
	if (!five)
		five = solver_tables_five_cached("check_reduce");
}

/* The tables hold what the breadth-first counts say (docs/solvers.md,
 * "5×5 in five phases"): each table's states by depth. The totals are
 * the coordinates' sizes: C(24,8) twice, C(16,8)², C(24,12), 70⁴ split
 * states, of which phase 4 reaches 2,116,800 from phase 5's 36 (U/D,
 * R/L) centre splits; 70·1680² edge states; phase 5's 176,400 centre
 * states; 8!·70² pairings a class. */
START_TEST(five_tables_census)
{
	static const long want[10][16] = {
		/* phase 1: U/D x-centres, +-centres, every turn */
		{1, 4, 82, 1206, 14116, 123404, 422508, 173254, 896},
		{1, 4, 66, 900, 9626, 80202, 329202, 302146, 13324},
		/* phase 2: R/L x- and +-centres off U/D */
		{1, 2, 33, 374, 3838, 39254, 387357, 3374380, 20851334,
		 65556972, 66986957, 8423610, 12788},
		/* phase 3: the class-A wings' slots */
		{1, 2, 29, 278, 1934, 15640, 124249, 609241, 1224098, 688124,
		 40560},
		/* phase 3: the centre splits to phase 4's reach */
		{2116800, 1940400, 5213600, 8290800, 5978000, 470400},
		/* phase 4: its centre splits (15: out of reach) */
		{36, 132, 1146, 7176, 36836, 171754, 503484, 749808, 483736,
		 158924, 3768, 0, 0, 0, 0, 21893200},
		/* phase 4: the four edges */
		{1, 4, 30, 200, 1296, 8187, 49334, 283026, 1528102, 7504518,
		 30068326, 76791716, 72115012, 9182472, 35776},
		/* phase 5: the centres */
		{1, 4, 42, 280, 1691, 8806, 36264, 77966, 46518, 4828},
		/* phase 5: each class' pairing with the F/B splits */
		{1, 4, 30, 196, 1315, 8527, 54089, 335196, 1983675, 10389623,
		 40762934, 86158440, 54686120, 3185914, 1936},
		{1, 4, 30, 196, 1315, 8527, 54089, 335196, 1983675, 10389623,
		 40762934, 86158440, 54686120, 3185914, 1936},
	};
	static const long total[10] = {735471, 735471, 165636900, 2704156,
				       24010000, 24010000, 197568000, 176400,
				       197568000, 197568000};
	for (int k = 0; k < 10; k++) {
		long got[16];
		ck_assert_int_eq(reduce__five_census(five, k, got), total[k]);
		for (int d = 0; d < 16; d++)
			ck_assert_msg(got[d] == want[k][d],
				      "table %d depth %d: %ld, want %ld", k, d,
				      got[d], want[k][d]);
	}
	ck_assert_int_eq(reduce_five_tables_check(five,
						  reduce_five_tables_size()),
			 CUBE_OK);
}
END_TEST

/* The five phases' answer, checked as solve_opts checks every answer
 * (applied as moves and as text): no parity stage, the reduction in the
 * centers (phases 1 and 2) and edges (3 to 5) stages, not the staged
 * centers' steps. */
static struct solved five_solve(const cube_t *c, int effort)
{
	struct solved s = solve_opts(c, stage, effort, five);
	ck_assert_int_eq(s.res.stage[REDUCE_OLL_PARITY].count, 0);
	ck_assert_int_eq(s.res.stage[REDUCE_PLL_PARITY].count, 0);
	ck_assert_int_eq(s.res.oll_parity, 0);
	for (int j = 0; j < 4; j++)
		ck_assert_int_eq(s.res.center_steps[j], 0);
	/* phases 1 and 2 are about 19 moves, 3 to 5 about 37 */
	ck_assert_int_le(s.res.stage[REDUCE_CENTERS].count, 24);
	ck_assert_int_le(s.res.stage[REDUCE_EDGES].count, 46);
	return s;
}

/* Seeded 5×5s through the five phases at the default effort: the mean
 * under cube555's 72 (69.75 on these 12; the bench's first 60 70.43:
 * bench/RESULTS.md, "5×5 by its five phases"). */
START_TEST(five_random)
{
	int sum = 0, count = 12;
	for (int k = 0; k < count; k++) {
		cube_t *c = random_cube(5, 9100u * 5u + (unsigned)k);
		struct solved s = five_solve(c, 0);
		sum += s.count;
		free(s.moves);
		free(c);
	}
	ck_assert_msg(sum < 72 * count, "mean %.2f over %d",
		      (double)sum / count, count);
}
END_TEST

/* The parity cases: seeded states the stage-by-stage path solves with
 * an OLL parity stage and without both go through the five phases with
 * none (phase 2 evens the wing permutation), and so does a solved cube
 * with one edge's two wings swapped (the lone parity); a solved cube
 * needs nothing. */
START_TEST(five_parities)
{
	int seen[2] = {0}, count = 0;
	for (unsigned k = 0; k < 40 && count < 2; k++) {
		cube_t *c = random_cube(5, 31000u + k);
		struct solved old = solve_with(c, stage);
		int o = old.res.oll_parity != 0;
		free(old.moves);
		if (seen[o]) {
			free(c);
			continue;
		}
		seen[o] = 1;
		count++;
		struct solved s = five_solve(c, 0);
		free(s.moves);
		free(c);
	}
	ck_assert_int_eq(count, 2);
	cube_t *c = new_cube(5);
	struct solved s = solve_opts(c, stage, 0, five);
	ck_assert_int_eq(s.count, 0);
	free(s.moves);
	flip_uf(c, 1);
	s = five_solve(c, 0);
	ck_assert_int_gt(s.count, 0);
	free(s.moves);
	free(c);
}
END_TEST

/* Effort 3 (larger answer sets) gives a checked answer, never longer
 * than the default's on these states. */
START_TEST(five_effort)
{
	for (int k = 0; k < 2; k++) {
		cube_t *c = random_cube(5, 777u + (unsigned)k);
		struct solved a = five_solve(c, 0);
		struct solved b = five_solve(c, 3);
		ck_assert_int_le(b.count, a.count);
		free(a.moves);
		free(b.moves);
		free(c);
	}
}
END_TEST

/* A caller's poll reaches into the phase searches (every 65,536 nodes):
 * a stop there ends the solve with SOLVE_ENOTFOUND, no poll after it. */
struct five_poll {
	int calls, stop_at, after_stop, deep;
};

static int five_poll_fn(void *ctx, uint64_t done, uint64_t total)
{
	(void)total;
	struct five_poll *p = ctx;
	if (p->stop_at && p->calls >= p->stop_at) {
		p->after_stop++;
		return 1;
	}
	p->calls++;
	p->deep += done != 0;
	return p->stop_at && p->calls == p->stop_at;
}

START_TEST(five_polls)
{
	size_t ws = reduce_work_size(5), cap = reduce_max_moves(5);
	void *work = malloc(ws);
	cube_move *mv = malloc(cap * sizeof *mv);
	REQUIRE(work && mv);
	reduce_result res;
	cube_t *c = random_cube(5, 9100u * 5u);
	struct five_poll p = {0};
	reduce_limits rl = {.stage_tables = stage, .five_tables = five,
			    .poll = five_poll_fn, .ctx = &p};
	ck_assert_int_gt(reduce_solve(tables, c, &rl, work, ws, mv, cap, &res),
			 0);
	ck_assert_int_gt(p.deep, 0); /* asked from inside a search */
	struct five_poll q = {.stop_at = 1};
	rl.ctx = &q;
	ck_assert_int_eq(reduce_solve(tables, c, &rl, work, ws, mv, cap, &res),
			 SOLVE_ENOTFOUND);
	ck_assert_int_eq(q.calls, 1);
	ck_assert_int_eq(q.after_stop, 0);
	free(c);
	free(work);
	free(mv);
}
END_TEST

/* A caller's hurry (reduce_limits.hurry), asked from the phase searches
 * as often as the poll: wherever it says yes the answer is whole and
 * checked, and it is either the phases' (hurried in phase 5 once it has
 * an answer) or the stage-by-stage reduction's, the same as without the
 * phase tables. Never hurried, the answer is the unhurried one; hurried
 * at the first ask, the stage-by-stage one, asked no more; at the last
 * (in phase 5 on this state, the bench's state 3), the phases'. At effort 2,
 * hurried in the larger pass, the default pass's reductions are kept:
 * the phases' answer, no longer than the default's. */
struct hurry {
	int calls, at, fired;
};

static int hurry_fn(void *ctx)
{
	struct hurry *h = ctx;
	if (h->calls++ < h->at)
		return 0;
	h->fired = 1;
	return 1;
}

static int same_moves(const struct solved *a, const struct solved *b)
{
	return a->count == b->count &&
	       memcmp(a->moves, b->moves,
		      (size_t)a->count * sizeof *a->moves) == 0;
}

/* the five phases' reduction: no parity stage, no staged-center steps */
static int by_phases(const struct solved *s)
{
	return s->res.stage[REDUCE_OLL_PARITY].count == 0 &&
	       s->res.stage[REDUCE_PLL_PARITY].count == 0 &&
	       s->res.center_steps[0] + s->res.center_steps[1] +
			       s->res.center_steps[2] + s->res.center_steps[3] ==
		       0;
}

START_TEST(five_hurry)
{
	cube_t *c = random_cube(5, 9100u * 5u + 3u);
	struct hurry h = {.at = 1 << 30};
	reduce_limits rl = {.stage_tables = stage, .five_tables = five,
			    .hurry = hurry_fn, .ctx = &h};
	struct solved whole = solve_rl(c, &rl), plain = five_solve(c, 0);
	ck_assert(!h.fired);
	ck_assert(same_moves(&whole, &plain));
	ck_assert(by_phases(&whole));
	int asks = h.calls;
	ck_assert_int_gt(asks, 4);

	/* this state's last asks come in phase 5 once it has an answer */
	h = (struct hurry){.at = asks - 1};
	struct solved late = solve_rl(c, &rl);
	ck_assert(h.fired);
	ck_assert(by_phases(&late));
	ck_assert_int_ge(late.count, whole.count);
	free(late.moves);
	struct solved old = solve_with(c, stage);
	ck_assert(!by_phases(&old) || old.count != whole.count);
	for (int at = 0; at < asks; at += at < 2 ? 1 : 1 + asks / 6) {
		h = (struct hurry){.at = at};
		struct solved s = solve_rl(c, &rl);
		ck_assert(h.fired);
		ck_assert_int_eq(h.calls, at + 1); /* asked no more */
		ck_assert(same_moves(&s, &old) ||
			  (by_phases(&s) && s.count >= whole.count));
		if (at == 0)
			ck_assert(same_moves(&s, &old));
		free(s.moves);
	}

	/* effort 2: its first pass is the default's, asked as often */
	rl.effort = 2;
	h = (struct hurry){.at = asks};
	struct solved e2 = solve_rl(c, &rl);
	ck_assert(h.fired);
	ck_assert_int_eq(h.calls, asks + 1);
	ck_assert(by_phases(&e2));
	ck_assert_int_le(e2.count, whole.count);
	free(e2.moves);
	free(whole.moves);
	free(plain.moves);
	free(old.moves);
	free(c);
}
END_TEST

/* Effort 2 and 3 from 8×8 to 33×33 ask the caller's hurry between
 * their stages and the centers' bar steps and rings (reduce__ease):
 * once it says yes the variant goes on at the default effort and no
 * other starts, so a slow machine gets an answer where the first
 * variant alone would outrun the budget. Never hurried, effort 2's
 * answer is its own (not the default's: what makes the hurried one
 * the default's is the hurry); hurried at the first ask, exactly the
 * default's, asked no more; hurried at the first variant's last ask
 * (before its edges), not the default's; half way, a checked answer.
 * Once a variant has answered the hurry is asked no more, so the asks
 * never hurried are the first variant's. */
START_TEST(big_hurry)
{
	cube_t *c = random_cube(10, 9100u * 10u + 1u);
	struct hurry h = {.at = 1 << 30};
	reduce_limits rl = {.stage_tables = stage, .effort = 2,
			    .hurry = hurry_fn, .ctx = &h};
	struct solved def = solve_with(c, stage);
	struct solved e2 = solve_rl(c, &rl);
	ck_assert(!h.fired);
	ck_assert(!same_moves(&e2, &def));
	int asks = h.calls;
	ck_assert_int_gt(asks, 8);

	h = (struct hurry){.at = 0};
	struct solved first = solve_rl(c, &rl);
	ck_assert(h.fired);
	ck_assert_int_eq(h.calls, 1);
	ck_assert(same_moves(&first, &def));

	/* the last ask of the first variant, before its edges: its
	 * centers effort 2's, the rest the default's */
	h = (struct hurry){.at = asks - 1};
	struct solved late = solve_rl(c, &rl);
	ck_assert(h.fired);
	ck_assert_int_eq(h.calls, asks);
	ck_assert(!same_moves(&late, &def));
	free(late.moves);
	h = (struct hurry){.at = asks / 2};
	struct solved mid = solve_rl(c, &rl);
	ck_assert(h.fired);
	ck_assert_int_eq(h.calls, asks / 2 + 1);
	free(mid.moves);
	free(first.moves);
	free(e2.moves);
	free(def.moves);
	free(c);
}
END_TEST

/* Effort 2 and 3 from 34×34 to 72×72 solve the centers inside out, for
 * seconds where the default's block commutators take a fraction of one:
 * the default's pass runs first, so a deadline inside the inside-out
 * pass keeps the default's answer. Before, that pass ran alone and a
 * deadline in it left no answer (the server's 10 s on 72×72 on a slow
 * day: 422 where the default answers in 0.3 s). 36×36: the default's
 * polls counted (27,784), then effort 2 and 3 stopped 50 polls past
 * them, inside the inside-out pass (about 2,350 polls of its own; the
 * default's pass, run first, polls no more than the default does): the
 * default's reduction move for move, its 3×3 search cut short. Before,
 * effort 2 polled 2,352 times in all and answered inside out. */
START_TEST(inside_keeps_default)
{
	int n = 36;
	cube_t *c = random_cube(n, 9100u * (unsigned)n);
	struct counted k = {0, 0};
	reduce_limits rl = {.stage_tables = stage, .poll = count_polls,
			    .ctx = &k};
	struct solved def = solve_rl(c, &rl);
	long polls = k.calls;
	int start = def.res.stage[REDUCE_3X3].start;
	ck_assert_int_gt(start, 8000);
	for (int e = 2; e <= REDUCE_MAX_EFFORT; e++) {
		k = (struct counted){0, polls + 50};
		rl.effort = e;
		struct solved cut = solve_rl(c, &rl);
		ck_assert_int_ge(k.calls, polls + 50);
		ck_assert_int_eq(cut.res.stage[REDUCE_3X3].start, start);
		ck_assert_int_eq(memcmp(cut.moves, def.moves,
					(size_t)start * sizeof *def.moves),
				 0);
		ck_assert_msg(cut.count >= def.count - 10 &&
				      cut.count <= def.count + 10,
			      "effort %d cut: %d moves, the default %d", e,
			      cut.count, def.count);
		free(cut.moves);
	}
	free(def.moves);
	free(c);
}
END_TEST

/* As five_hurry, on a 4×4: hurried, the frame at hand is given up and,
 * with no frame done, the stage-by-stage reduction answers. The state is
 * the first seeded one whose phases ask at least four times (phases 2 and
 * 3 ask every 65,536 nodes). */
START_TEST(four_hurry)
{
	cube_t *c = NULL;
	struct hurry h;
	reduce_limits rl = {.stage_tables = stage, .four_tables = four,
			    .hurry = hurry_fn, .ctx = &h};
	struct solved whole = {0};
	for (unsigned k = 0; k < 60; k++) {
		c = random_cube(4, 9100u * 4u + k);
		h = (struct hurry){.at = 1 << 30};
		whole = solve_rl(c, &rl);
		if (h.calls >= 4)
			break;
		free(whole.moves);
		free(c);
		c = NULL;
	}
	REQUIRE(c);
	int asks = h.calls;
	ck_assert(!h.fired);
	ck_assert(by_phases(&whole));
	struct solved plain = solve_opts(c, stage, 0, four);
	ck_assert(same_moves(&whole, &plain));

	struct solved old = solve_with(c, stage);
	for (int at = 0; at < asks; at++) {
		h = (struct hurry){.at = at};
		struct solved s = solve_rl(c, &rl);
		ck_assert(h.fired);
		ck_assert_int_eq(h.calls, at + 1); /* asked no more */
		ck_assert(same_moves(&s, &old));
		free(s.moves);
	}
	free(whole.moves);
	free(plain.moves);
	free(old.moves);
	free(c);
}
END_TEST

/* The frames of one class (the colour pair on the U/D axis) set the
 * phases one problem, so a class whose phases ran out of their budget is
 * not tried again: at most three frames run out, one per class. The
 * state (the server's 4×4 scramble of seed 116) runs out of phase 2's
 * budget in every class; before, all eight frames were tried (8 of
 * phase 2's searches to its budget, 5.5 s) and the stage-by-stage
 * reduction answered, 55 moves. Now three run out, one per class; then
 * the phases go again class by class with phase 1 one move longer: two
 * classes run out again and the third answers, 40 moves, 5 spent
 * searches in all. Counted by the poll: a search that spends its budget
 * asks at 61 · 65,536 nodes of 4,000,000. */
struct class_poll {
	int spent;
};

static int class_poll_fn(void *ctx, uint64_t done, uint64_t total)
{
	struct class_poll *p = ctx;
	if (total == 4000000u && done == 61u * 65536u)
		p->spent++;
	return 0;
}

START_TEST(four_classes)
{
	static const char f[] = "DRRFLDULFUDDRLLBRLUUURRURLRFFULRBFFUDFBFUFBDFRBL"
				"UDLDFUBRDUFBBBBFBUDDBRLBBLLBLLDRLFFLRFBRUDDUDRDU";
	cube_t *c = new_cube(4);
	ck_assert_int_eq(cube_from_facelets(c, 4, f, sizeof f - 1, NULL),
			 CUBE_OK);
	struct class_poll p = {0};
	reduce_limits rl = {.stage_tables = stage, .four_tables = four,
			    .poll = class_poll_fn, .ctx = &p};
	struct solved s = solve_rl(c, &rl);
	ck_assert_int_eq(p.spent, 5);
	ck_assert(by_phases(&s));
	ck_assert_int_eq(s.count, 40);
	free(s.moves);
	free(c);
}
END_TEST

/* As four_bad_tables (bad_phase_tables), with a 4×4 the other size. */
START_TEST(five_bad_tables)
{
	bad_phase_tables(5, five, reduce_five_tables_size(),
			 reduce_five_tables_check, reduce_five_tables_build,
			 reduce_five_tables_work_size(), 4);
}
END_TEST

Suite *reduce_suite(void)
{
	Suite *s = suite_create("reduce");
	/* Five cases of about the same length (each runs alone in CI, so the
	 * sanitized run spreads over both cores): under the sanitizers a
	 * 9×9 solve takes seconds, and the CI machine is slower than ours */
	const struct {
		const char *name;
		const TTest *tests[12];
	} cases[] = {
		{"reduce_parity",
		 {solved_needs_nothing, oll_parity_even, pll_parity_even,
		  both_parities_even, pll_parity_avoided, pll_stage_versions,
		  lone_flip_odd, illegal_states, poll_cap_and_arguments,
		  edge_beam_width_by_effort, plan_by_size}},
		{"reduce_tables",
		 {deterministic, golden_solutions, shared_stage_tables,
		  stage_tables_cache, poll_late_keeps_answer,
		  bar_scan_bounds}},
		{"reduce_centers",
		 {staged_centers_steps, bar_trials_9, bar_trials_effort,
		  bar_beam_dies, bar_twins}},
		{"reduce_edges",
		 {edges_stage_pairs_all, edge_halves, wing_orbits_together,
		  free_turn_3x3}},
		{"reduce_budget", {big_hurry, inside_keeps_default, anytime_answers}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		if (!test_in_part((int)i))
			continue;
		TCase *t = tcase_create(cases[i].name);
		tcase_add_unchecked_fixture(t, load_tables, NULL);
		tcase_set_timeout(t, SANITIZED ? 900 : 120);
		for (int k = 0; k < 12 && cases[i].tests[k]; k++)
			tcase_add_test(t, cases[i].tests[k]);
		suite_add_tcase(s, t);
	}

	/* the long sweeps, the 4×4's three phases and the 5×5's five (their
	 * tables take about a minute and 35 s to build, then cached in
	 * $CUBED_TABLES): make test-slow (tag "slow"), not make test */
	const struct {
		const char *name;
		void (*tables)(void);
		const TTest *tests[12];
	} slow[] = {
		{"reduce_slow_random", load_tables,
		 {random_4_to_12, random_17_and_33}},
		{"reduce_slow_tables", load_tables,
		 {golden_solutions_large, shared_stage_tables_larger,
		  edges_stage_pairs_more, staged_centers_steps_more}},
		{"reduce_slow_efforts", load_tables,
		 {efforts, effort3_inside_budget}},
		{"reduce_slow_guards", load_tables,
		 {mean_length_guard, big_length_guard}},
		{"reduce_slow_parity", load_tables,
		 {parity_sweep, parity_largest, pll_parity_count}},
		{"reduce_four", load_four,
		 {four_tables_census, four_random, four_parities, four_polls,
		  four_hurry, four_classes, four_effort, four_bad_tables}},
		{"reduce_five", load_five,
		 {five_tables_census, five_random, five_parities, five_effort,
		  five_polls, five_hurry, five_bad_tables}},
	};
	/* numbered apart from the everyday cases: make test and make
	 * test-slow each deal out their own */
	for (size_t i = 0; i < sizeof slow / sizeof *slow; i++) {
		if (!test_in_part((int)i))
			continue;
		TCase *t = tcase_create(slow[i].name);
		tcase_set_tags(t, "slow");
		tcase_add_unchecked_fixture(t, slow[i].tables, NULL);
		tcase_set_timeout(t, SANITIZED ? 3600 : 900);
		for (int k = 0; k < 12 && slow[i].tests[k]; k++)
			tcase_add_test(t, slow[i].tests[k]);
		suite_add_tcase(s, t);
	}
	return s;
}
