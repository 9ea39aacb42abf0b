/* check_reduce.c — the reduction solver (core/reduce.c): random states of
 * every size from 4 to 12, and 17 and 33, solved and checked by applying
 * the answer twice, once as moves and once as the printed text read back
 * by the notation parser; the stages laid end to end; the parities forced
 * on purpose (a flipped dedge = OLL parity, two swapped dedges = PLL
 * parity, on 4×4 and 6×6; a lone flipped wing pair on 5×5); illegal
 * states refused with the reason validation gives; poll (early: an error;
 * late, among the variants: an answer), a small buffer and bad
 * arguments; the staged-center tables shared across calls (the same
 * answers as without); a guard on the mean length of 4×4, 5×5, 6×6, 7×7
 * and 9×9 answers, their centers and their edges; the staged centers'
 * steps each reaching its goal; the edges stage's goal (centers kept,
 * every edge paired); the answers to seeded states of every size 4 to 12
 * and a few larger, move for move, against a golden file.
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
#include "suites.h"

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
 * 118.6, edges 75.75) plus about 5%; for 4×4 that is also under the
 * published average of 72. */
#define MEAN_BOUND_4 57.5
#define MEAN_BOUND_5 98.0
#define MEAN_BOUND_7 224.5
#define CENTER_BOUND_4 18.0
#define CENTER_BOUND_5 35.5
#define CENTER_BOUND_7 124.5
#define EDGE_BOUND_4 19.5
#define EDGE_BOUND_5 42.5
#define EDGE_BOUND_7 79.5
#define MEAN_BOUND_6 209.0
#define CENTER_BOUND_6 121.0
#define EDGE_BOUND_6 68.0
#define MEAN_BOUND_9 721.0
#define CENTER_BOUND_9 403.0
#define EDGE_BOUND_9 304.5

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

/* Solve c and check everything about the answer. */
static struct solved solve_with(const cube_t *c, const void *stage_tables)
{
	int n = c->n;
	reduce_limits rl = {NULL, NULL, stage_tables};
	size_t ws = reduce_work_size(n), cap = reduce_max_moves(n);
	void *work = malloc(ws);
	struct solved s;
	s.moves = malloc(cap * sizeof *s.moves);
	REQUIRE(ws > 0 && cap > 0 && work && s.moves);
	s.count = reduce_solve(tables, c, &rl, work, ws, s.moves, cap, &s.res);
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
		random_states(n, 4);
}
END_TEST

START_TEST(random_17_and_33)
{
	random_states(17, 2);
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

/* Flip the dedge between U and F (all its wings, or only orbit 1's): its
 * U stickers are U's last row, its F stickers F's first row, column by
 * column. */
static void flip_uf(cube_t *c, int all)
{
	int n = c->n;
	for (int k = 1; k < n - 1; k++) {
		if (!all && k != 1 && k != n - 2)
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
	reduce_limits lim = {stop_at_once, &calls, NULL};
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
	reduce_limits lim = {count_polls, &k, NULL};
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
		     {7, MEAN_BOUND_7, CENTER_BOUND_7, EDGE_BOUND_7},
		     {6, MEAN_BOUND_6, CENTER_BOUND_6, EDGE_BOUND_6},
		     {9, MEAN_BOUND_9, CENTER_BOUND_9, EDGE_BOUND_9}};
	for (size_t g = 0; g < sizeof guard / sizeof *guard; g++) {
		int n = guard[g].n;
		double sum = 0, csum = 0, esum = 0;
		for (int k = 0; k < 8; k++) {
			cube_t *c = random_cube(n, 7700u + 10u * (unsigned)n +
						       (unsigned)k);
			struct solved s = solve_checked(c);
			alg_metrics am;
			moves_metrics(s.moves, (size_t)s.count, n, &am);
			ck_assert_uint_eq(am.stm, (uint64_t)s.count);
			sum += (double)am.stm;
			csum += s.res.stage[REDUCE_CENTERS].count;
			esum += s.res.stage[REDUCE_EDGES].count;
			free(s.moves);
			free(c);
		}
		ck_assert_msg(sum / 8 <= guard[g].bound,
			      "%dx%d: mean %.1f moves, guard %.1f", n, n,
			      sum / 8, guard[g].bound);
		ck_assert_msg(csum / 8 <= guard[g].centers,
			      "%dx%d: centers mean %.1f moves, guard %.1f", n,
			      n, csum / 8, guard[g].centers);
		ck_assert_msg(esum / 8 <= guard[g].edges,
			      "%dx%d: edges mean %.1f moves, guard %.1f", n,
			      n, esum / 8, guard[g].edges);
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
 * every center solved. The steps' moves are the whole centers stage. */
START_TEST(staged_centers_steps)
{
	for (int k = 0; k < 3; k++) {
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
 * pairs midges and wings; every size it runs on): after it, every center
 * still solved and all twelve edges paired, every wing beside its own
 * midge or partner, whatever the 3×3 left to do. */
START_TEST(edges_stage_pairs_all)
{
	static const struct {
		int n, states;
	} sizes[] = {{5, 10}, {4, 2}, {6, 2}, {7, 2}, {8, 2}};
	for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
		for (int k = 0; k < sizes[z].states; k++) {
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
END_TEST

/* The staged-center tables built once (reduce_stage_tables_build) give
 * the very answers each solve gets building its own, size by size (4×4,
 * 5×5, an even and an odd size past them, each kind of table); tables
 * not made by it are refused; the build's own errors and poll. */
START_TEST(shared_stage_tables)
{
	size_t ts = reduce_stage_tables_size(),
	       sws = reduce_stage_tables_work_size();
	unsigned char *st = malloc(ts);
	void *swork = malloc(sws);
	REQUIRE(st && swork && ts > 1000000 && sws >= reduce_work_size(7));
	int calls = 0;
	reduce_limits stop = {stop_at_once, &calls, NULL};
	ck_assert_int_eq(reduce_stage_tables_build(st, ts, swork, sws, &stop),
			 SOLVE_ENOTFOUND);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(reduce_stage_tables_build(st, ts - 1, swork, sws,
						   NULL),
			 CUBE_EINVAL);
	ck_assert_int_eq(reduce_stage_tables_build(st, ts, swork, sws - 1,
						   NULL),
			 CUBE_EINVAL);
	ck_assert_int_eq(reduce_stage_tables_build(NULL, ts, swork, sws, NULL),
			 CUBE_EINVAL);
	ck_assert_int_eq(reduce_stage_tables_build(st, ts, swork, sws, NULL), 0);
	free(swork);

	static const int sizes[] = {4, 5, 6, 7, 8, 9};
	reduce_limits lim = {NULL, NULL, st};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
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
 * larger, move for move, as tests/golden/reduce_solutions.txt has them
 * (n, seed, moves, each stage's moves, a hash of the moves): a change
 * that should not change answers (a refactoring, a faster scan) is held
 * to that, and one that should shows where. With CUBED_GOLDEN_UPDATE=1
 * the test writes the file anew from today's answers instead (after a
 * change meant to change them; the diff then goes in its commit). */
START_TEST(golden_solutions)
{
	struct golden_case *gc;
	int count = golden_load("reduce_solutions.txt", &gc);
	const char *upd = getenv("CUBED_GOLDEN_UPDATE");
	int update = upd && strcmp(upd, "1") == 0;
	FILE *out = NULL;
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
END_TEST

/* The same state gives the same answer (no hidden state between calls). */
START_TEST(deterministic)
{
	cube_t *c = random_cube(7, 11);
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

Suite *reduce_suite(void)
{
	Suite *s = suite_create("reduce");
	TCase *t = tcase_create("reduce");
	tcase_add_unchecked_fixture(t, load_tables, NULL);
	/* under the sanitizers a 9×9 solve takes seconds, and the CI machine
	 * is slower than ours: the guard's 40 solves took 117 s of 120 here */
	tcase_set_timeout(t, SANITIZED ? 900 : 120);
	tcase_add_test(t, random_4_to_12);
	tcase_add_test(t, random_17_and_33);
	tcase_add_test(t, solved_needs_nothing);
	tcase_add_test(t, oll_parity_even);
	tcase_add_test(t, pll_parity_even);
	tcase_add_test(t, both_parities_even);
	tcase_add_test(t, lone_flip_odd);
	tcase_add_test(t, illegal_states);
	tcase_add_test(t, poll_cap_and_arguments);
	tcase_add_test(t, deterministic);
	tcase_add_test(t, golden_solutions);
	tcase_add_test(t, shared_stage_tables);
	tcase_add_test(t, poll_late_keeps_answer);
	tcase_add_test(t, mean_length_guard);
	tcase_add_test(t, staged_centers_steps);
	tcase_add_test(t, edges_stage_pairs_all);
	suite_add_tcase(s, t);
	return s;
}
