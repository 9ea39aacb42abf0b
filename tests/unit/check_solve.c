/* check_solve.c — the solvers and scrambles (core/twophase.c, solve2.c,
 * scramble.c): thousands of random 3×3 states solved and every solution
 * applied back with cube_turn; the 2×2 table's distribution and every
 * answer's optimality against an independent breadth-first search; tables
 * that are the same bytes on every run and reject a flipped byte;
 * cancellation; scrambles that reproduce from a seed and obey the
 * no-redundancy rule.
 *
 * The tables are built once, in an unchecked fixture, in the runner's own
 * process: every test's forked child inherits them copy-on-write, so the
 * seconds of set-up are paid once. CUBED_SOLVE_N sets how many random 3×3
 * states are solved (default 10,000; 500 under a sanitizer, which makes
 * the search about ten times slower). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "cubie.h"
#include "require.h"
#include "solve.h"
#include "solver_tables.h"
#include "suites.h"

/* FNV-1a of the table bytes, pinned below: the same bytes on every run
 * and machine (of this byte order), as a cache file needs. */
#define TABLES3_FNV 0x29848d2dfa5a5072ULL
#define TABLES2_FNV 0x2696afa27b439fa0ULL

static unsigned char *tables3, *tables2;
static size_t size3, size2;

/* What table init reported through poll, checked by a test. */
static struct {
	int calls, monotone, bad_total;
	uint64_t last_done, total;
} progress3;

static int record_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	if (progress3.calls++ == 0)
		progress3.total = total;
	if (done < progress3.last_done)
		progress3.monotone = 0;
	if (total != progress3.total || done > total)
		progress3.bad_total = 1;
	progress3.last_done = done;
	return 0;
}

/* Built here, not read from a cache: what init makes is under test. */
static void build_tables(void)
{
	if (tables3)
		return;
	size3 = twophase_table_size();
	size2 = solve2_table_size();
	tables3 = solver_tables_alloc("check_solve", size3);
	tables2 = solver_tables_alloc("check_solve", size2);
	progress3.monotone = 1;
	solver_tables_require(
		"check_solve", "two-phase",
		twophase_table_init(tables3, size3, record_progress, NULL));
	solver_tables_require("check_solve", "2x2",
			      solve2_table_init(tables2, size2, NULL, NULL));
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static int sample_size(void)
{
	const char *e = getenv("CUBED_SOLVE_N");
	if (e && *e)
		return atoi(e);
	if (SANITIZED)
		return 500;
	return test_slow() ? 10000 : 1000;
}

/* 1 if moves m[0..n) take x to solved, applied to stickers by cube_turn:
 * this checks the solver's cubies and its move convention (D is layer 2
 * of y, counted clockwise from U) against the engine's. */
static int solves3(const cubie3 *x, const cube_move *m, int n)
{
	static _Alignas(16) unsigned char buf[512];
	cube_t *c = (cube_t *)(void *)buf;
	char f[54];
	if (cube_sizeof(3) > sizeof buf)
		return 0;
	cube3_to_facelets(x, f);
	if (cube_from_facelets(c, 3, f, 54, NULL) < 0)
		return 0;
	if (cube_apply_moves(c, m, (size_t)n) < 0)
		return 0;
	return cube_is_solved(c);
}

static int solves2(const cubie2 *x, const cube_move *m, int n)
{
	static _Alignas(16) unsigned char buf[512];
	cube_t *c = (cube_t *)(void *)buf;
	char f[24];
	cube2_to_facelets(x, f);
	if (cube_from_facelets(c, 2, f, 24, NULL) < 0)
		return 0;
	if (cube_apply_moves(c, m, (size_t)n) < 0)
		return 0;
	return cube_is_solved(c);
}

/* A solution's moves are face turns: one outer layer, 1..3 quarter turns,
 * never the same layer twice in a row (that would merge). */
static int face_turns_only(const cube_move *m, int n, int size)
{
	for (int i = 0; i < n; i++) {
		if (m[i].axis > 2 || m[i].lo != m[i].hi ||
		    (m[i].lo != 0 && m[i].lo != size - 1) || m[i].qt < 1 ||
		    m[i].qt > 3)
			return 0;
		if (i && m[i].axis == m[i - 1].axis && m[i].lo == m[i - 1].lo)
			return 0;
	}
	return 1;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* ------------------------------------------------------------------ 3×3 */

START_TEST(random_states3)
{
	int n = sample_size(), *len = malloc((size_t)n * sizeof *len);
	long total = 0;
	cube_rng r;
	cube_rng_seed(&r, 20240501);
	ck_assert_ptr_nonnull(len);
	for (int i = 0; i < n; i++) {
		cubie3 x;
		cube_move m[32];
		cubie3_random(&r, &x);
		int k = twophase_solve(tables3, &x, NULL, m, 32);
		if (k < 0 || k > 21 || !solves3(&x, m, k) ||
		    !face_turns_only(m, k, 3))
			ck_abort_msg("state %d: solve returned %d (%s)", i, k,
				     k < 0 ? solve_errname(k) : "does not solve");
		len[i] = k;
		total += k;
	}
	qsort(len, (size_t)n, sizeof *len, cmp_int);
	fprintf(stderr, "solve: %d random 3x3 states, median %d, mean %.2f, "
			"max %d moves\n",
		n, len[n / 2], (double)total / n, len[n - 1]);
	ck_assert_int_le(len[n / 2], 20);
	ck_assert_int_le(len[n - 1], 21);
	free(len);
}
END_TEST

/* target 21 is min2phase's setting: the first solution of at most 21 */
START_TEST(target_21)
{
	cube_rng r;
	cube_rng_seed(&r, 7);
	solve_limits lim = {0, 21, NULL, NULL, 0, 0};
	for (int i = 0; i < 500; i++) {
		cubie3 x;
		cube_move m[32];
		cubie3_random(&r, &x);
		int k = twophase_solve(tables3, &x, &lim, m, 32);
		REQUIRE(k >= 0 && k <= 21 && solves3(&x, m, k));
	}
}
END_TEST

START_TEST(solved_is_empty)
{
	cubie3 x;
	cube_move m[1];
	cubie3_solved(&x);
	ck_assert_int_eq(twophase_solve(tables3, &x, NULL, m, 1), 0);
	ck_assert_int_eq(twophase_solve(tables3, &x, NULL, NULL, 0), 0);
}
END_TEST

/* Every face turn is solved by its inverse, in one move: pins D, L and B
 * as layer 2 turned counter-clockwise as seen from U, R and F. */
START_TEST(one_move_states)
{
	for (int f = 0; f < 6; f++)
		for (int q = 1; q <= 3; q++) {
			cubie3 x;
			cube_move m[32];
			ck_assert_int_eq(cubie3_face_turn(f, q, &x), CUBE_OK);
			int k = twophase_solve(tables3, &x, NULL, m, 32);
			ck_assert_int_eq(k, 1);
			ck_assert(solves3(&x, m, 1));
			static const int axis[3] = {CUBE_Y, CUBE_X, CUBE_Z};
			ck_assert_int_eq(m[0].axis, axis[f % 3]);
			ck_assert_int_eq(m[0].lo, f < 3 ? 0 : 2);
			ck_assert_int_eq(m[0].qt, f < 3 ? 4 - q : q);
		}
}
END_TEST

/* Asked for it (target = the scramble's length), the solver finds a
 * solution no longer than a short scramble. */
START_TEST(short_scrambles)
{
	cube_rng r;
	cube_rng_seed(&r, 99);
	for (int i = 0; i < 300; i++) {
		int len = 1 + (int)cube_rng_below(&r, 8);
		cubie3 x, t;
		cubie3_solved(&x);
		for (int k = 0; k < len; k++) {
			cubie3_face_turn((int)cube_rng_below(&r, 6),
					 1 + (int)cube_rng_below(&r, 3), &t);
			cubie3_compose(&x, &t, &x);
		}
		cube_move m[32];
		solve_limits lim = {0, len, NULL, NULL, 0, 0};
		int k = twophase_solve(tables3, &x, &lim, m, 32);
		REQUIRE(k >= 0 && k <= len && solves3(&x, m, k));
	}
}
END_TEST

/* Superflip is 20 moves and no fewer (Reid, 1995): the default target
 * must reach it exactly. Its symmetry makes five of the six search
 * directions repeats of the first. */
START_TEST(superflip)
{
	cubie3 x;
	cube_move m[32];
	cubie3_solved(&x);
	memset(x.eo, 1, sizeof x.eo);
	int k = twophase_solve(tables3, &x, NULL, m, 32);
	ck_assert_int_eq(k, 20);
	ck_assert(solves3(&x, m, k));
}
END_TEST

START_TEST(invalid_cubies)
{
	cubie3 x;
	cube_move m[32];
	cubie3_solved(&x);
	x.co[0] = 1; /* one twisted corner */
	ck_assert_int_eq(twophase_solve(tables3, &x, NULL, m, 32), CUBE_EINVALID);
	cubie3_solved(&x);
	x.eo[5] = 1; /* one flipped edge */
	ck_assert_int_eq(twophase_solve(tables3, &x, NULL, m, 32), CUBE_EINVALID);
	cubie3_solved(&x);
	x.ep[0] = 1, x.ep[1] = 0; /* two edges swapped */
	ck_assert_int_eq(twophase_solve(tables3, &x, NULL, m, 32), CUBE_EINVALID);
	cubie3_solved(&x);
	x.cp[0] = 0, x.cp[1] = 0; /* not a permutation */
	ck_assert_int_eq(twophase_solve(tables3, &x, NULL, m, 32), CUBE_EINVALID);
	ck_assert_int_eq(twophase_solve(NULL, &x, NULL, m, 32), CUBE_EINVAL);
	ck_assert_int_eq(twophase_solve(tables3, NULL, NULL, m, 32), CUBE_EINVAL);
	ck_assert_int_eq(twophase_solve(tables3, &x, NULL, NULL, 32), CUBE_EINVAL);
}
END_TEST

/* A buffer that is not a table (all zero, say) is refused up front. */
START_TEST(not_tables)
{
	unsigned char *z = calloc(1, 4096);
	cubie3 x;
	cube_move m[32];
	ck_assert_ptr_nonnull(z);
	cubie3_face_turn(1, 1, &x);
	ck_assert_int_eq(twophase_solve(z, &x, NULL, m, 32), SOLVE_ETABLES);
	free(z);
}
END_TEST

static int stop_now(void *ctx, uint64_t done, uint64_t total)
{
	int *calls = ctx;
	ck_assert(done == 0 && total == 0); /* a search reports no progress */
	++*calls;
	return 1;
}

/* A poll that stops at once gives no solution or a valid one, never a
 * wrong one. With a target of 17, rarely reached within the first poll
 * interval, what comes back is the best found when it stopped. */
START_TEST(poll_stops_at_once)
{
	cube_rng r;
	cube_rng_seed(&r, 5);
	int calls = 0, early = 0;
	solve_limits lim = {0, 17, stop_now, &calls, 0, 0};
	for (int i = 0; i < 200; i++) {
		cubie3 x;
		cube_move m[32];
		cubie3_random(&r, &x);
		int k = twophase_solve(tables3, &x, &lim, m, 32);
		REQUIRE(k == SOLVE_ENOTFOUND ||
			(k > 0 && k <= 21 && solves3(&x, m, k)));
		early += k > 17 || k == SOLVE_ENOTFOUND;
	}
	ck_assert_int_gt(calls, 100);
	ck_assert_int_gt(early, 100);
}
END_TEST

struct budget {
	int left;
};

static int node_budget(void *ctx, uint64_t done, uint64_t total)
{
	struct budget *b = ctx;
	(void)done, (void)total;
	return --b->left < 0;
}

/* A tight length (18) under a node budget: whatever comes back is valid
 * and within the limit, else SOLVE_ENOTFOUND. */
START_TEST(max_length_respected)
{
	cube_rng r;
	cube_rng_seed(&r, 6);
	int found = 0;
	for (int i = 0; i < 40; i++) {
		cubie3 x;
		cube_move m[32];
		struct budget b = {50}; /* about 200,000 nodes */
		solve_limits lim = {18, 18, node_budget, &b, 0, 0};
		cubie3_random(&r, &x);
		int k = twophase_solve(tables3, &x, &lim, m, 32);
		REQUIRE(k == SOLVE_ENOTFOUND ||
			(k > 0 && k <= 18 && solves3(&x, m, k)));
		found += k > 0;
	}
	ck_assert_int_gt(found, 0);
}
END_TEST

/* max_nodes is a node budget: 4,096·k nodes give the very answer of a
 * poll that stops the search at its k-th call (polls come every 4,096
 * nodes), and a budget between two polls stops between them. */
START_TEST(max_nodes_budget)
{
	cube_rng r;
	cube_rng_seed(&r, 63);
	for (int i = 0; i < 12; i++) {
		cubie3 x;
		cube_move m1[32], m2[32], m3[32];
		cubie3_random(&r, &x);
		int k = 1 + i % 3;
		struct budget b = {k - 1};
		solve_limits by_poll = {0, 1, node_budget, &b, 0, 0};
		solve_limits by_nodes = {0, 1, NULL, NULL, 4096u * (unsigned)k, 0};
		int a = twophase_solve(tables3, &x, &by_poll, m1, 32);
		int c = twophase_solve(tables3, &x, &by_nodes, m2, 32);
		REQUIRE(a == c);
		REQUIRE(a == SOLVE_ENOTFOUND ||
			(memcmp(m1, m2, sizeof m1[0] * (size_t)a) == 0 && solves3(&x, m1, a)));
		/* more nodes never give a longer answer */
		solve_limits more = {0, 1, NULL, NULL, 4096u * (unsigned)k + 2000, 0};
		int d = twophase_solve(tables3, &x, &more, m3, 32);
		REQUIRE(d > 0 && solves3(&x, m3, d));
		REQUIRE(a == SOLVE_ENOTFOUND || d <= a);
	}
}
END_TEST

/* A label search (solve_limits.label) is a search too: its solution
 * solves the cube, runs give the same moves, a bigger budget never gives
 * a longer answer, and its budget also pays for the walks down the
 * tables: 60 nodes cannot even find the six directions' phase-1
 * distances of a random state (each walk takes 7 or more steps), where a
 * search for a solution to show spends those nodes on phase 1. */
START_TEST(label_search)
{
	cube_rng r;
	cube_rng_seed(&r, 64);
	int shown = 0;
	for (int i = 0; i < 12; i++) {
		cubie3 x;
		cube_move m1[32], m2[32], m3[32];
		cubie3_random(&r, &x);
		solve_limits lab = {0, 1, NULL, NULL, 1400, 1};
		int a = twophase_solve(tables3, &x, &lab, m1, 32);
		int b = twophase_solve(tables3, &x, &lab, m2, 32);
		REQUIRE(a == b);
		REQUIRE(a == SOLVE_ENOTFOUND ||
			(memcmp(m1, m2, sizeof m1[0] * (size_t)a) == 0 && solves3(&x, m1, a)));
		solve_limits more = {0, 1, NULL, NULL, 3400, 1};
		int d = twophase_solve(tables3, &x, &more, m3, 32);
		REQUIRE(d > 0 && solves3(&x, m3, d));
		REQUIRE(a == SOLVE_ENOTFOUND || d <= a);
		solve_limits few = {0, 1, NULL, NULL, 60, 1};
		REQUIRE(twophase_solve(tables3, &x, &few, m3, 32) == SOLVE_ENOTFOUND);
		few.label = 0;
		shown += twophase_solve(tables3, &x, &few, m3, 32) > 0;
	}
	ck_assert_int_gt(shown, 0);
}
END_TEST

/* A cap below every solution's length acts as the length limit. */
START_TEST(small_cap)
{
	cubie3 x, t;
	cube_move m[32];
	cubie3_face_turn(0, 1, &x);
	cubie3_face_turn(1, 1, &t);
	cubie3_compose(&x, &t, &x);
	ck_assert_int_eq(twophase_solve(tables3, &x, NULL, m, 1), SOLVE_ENOTFOUND);
	ck_assert_int_eq(twophase_solve(tables3, &x, NULL, m, 2), 2);
	ck_assert(solves3(&x, m, 2));
}
END_TEST

/* ----------------------------------------------------------------- tables */

START_TEST(tables3_deterministic)
{
	ck_assert_int_eq(twophase_table_check(tables3, size3), CUBE_OK);
	uint64_t h = fnv1a(tables3, size3);
	if (h != TABLES3_FNV)
		ck_abort_msg("two-phase tables hash to %016llx, expected %016llx",
			     (unsigned long long)h,
			     (unsigned long long)TABLES3_FNV);
}
END_TEST

START_TEST(tables2_deterministic)
{
	ck_assert_int_eq(solve2_table_check(tables2, size2), CUBE_OK);
	uint64_t h = fnv1a(tables2, size2);
	if (h != TABLES2_FNV)
		ck_abort_msg("2x2 table hashes to %016llx, expected %016llx",
			     (unsigned long long)h,
			     (unsigned long long)TABLES2_FNV);
}
END_TEST

/* A flipped byte anywhere — header, move tables, either pruning table,
 * the last byte — fails the check; restored, it passes again. */
static void flip_bytes(unsigned char *t, size_t size,
		       int (*check)(const void *, size_t))
{
	size_t at[] = {0, 30, 64, 100000, size / 3, size / 2, size - 1};
	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
		t[at[i]] ^= 0x10;
		ck_assert_int_eq(check(t, size), SOLVE_ETABLES);
		t[at[i]] ^= 0x10;
	}
	ck_assert_int_eq(check(t, size), CUBE_OK);
	ck_assert_int_eq(check(t, size - 1), SOLVE_ETABLES);
	ck_assert_int_eq(check(NULL, size), SOLVE_ETABLES);
}

START_TEST(flipped_byte3)
{
	flip_bytes(tables3, size3, twophase_table_check);
}
END_TEST

START_TEST(flipped_byte2)
{
	flip_bytes(tables2, size2, solve2_table_check);
}
END_TEST

START_TEST(init_progress)
{
	ck_assert_int_gt(progress3.calls, 100);
	ck_assert(progress3.monotone);
	ck_assert(!progress3.bad_total);
	ck_assert_uint_gt(progress3.total, 0);
	ck_assert_uint_eq(progress3.last_done, progress3.total);
}
END_TEST

static int cancel(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx, (void)done, (void)total;
	return 1;
}

/* A cancelled init leaves nothing that checks as tables. The buffers start
 * zeroed: an init cancelled at its first poll writes nothing (a failing
 * call leaves its output alone), and checking uninitialised bytes would
 * pass only by luck (valgrind memcheck flagged the reads). */
START_TEST(init_cancelled)
{
	unsigned char *b = calloc(1, size3);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(twophase_table_init(b, size3, cancel, NULL),
			 SOLVE_ECANCELLED);
	ck_assert_int_eq(twophase_table_check(b, size3), SOLVE_ETABLES);
	ck_assert_int_eq(twophase_table_init(b, size3 - 1, NULL, NULL), CUBE_EINVAL);
	free(b);
	b = calloc(1, size2);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(solve2_table_init(b, size2, cancel, NULL),
			 SOLVE_ECANCELLED);
	ck_assert_int_eq(solve2_table_check(b, size2), SOLVE_ETABLES);
	ck_assert_int_eq(solve2_table_init(NULL, size2, NULL, NULL), CUBE_EINVAL);
	free(b);
}
END_TEST

/* ------------------------------------------------------------------- 2×2 */

START_TEST(histogram2)
{
	static const uint64_t known[12] = {1,      9,       54,      321,
					   1847,   9992,    50136,   227536,
					   870072, 1887748, 623800,  2644};
	uint64_t counts[12];
	ck_assert_int_eq(solve2_table_histogram(tables2, counts), 11);
	for (int d = 0; d < 12; d++)
		ck_assert_uint_eq(counts[d], known[d]);
}
END_TEST

/* Every state's distance by a breadth-first search of our own — cubie2
 * compositions and cubie2_rank, none of solve2's tables — and the solver's
 * answer for every 5th state (50th under a sanitizer) and every state
 * within 6 moves checked against it: optimal, and it solves. */
START_TEST(optimal2_vs_bfs)
{
	uint8_t *dist = malloc(CUBE2_STATES);
	uint32_t *queue = malloc(CUBE2_STATES * sizeof *queue);
	cubie2 turn[9];
	ck_assert_ptr_nonnull(dist);
	ck_assert_ptr_nonnull(queue);
	for (int m = 0; m < 9; m++)
		cubie2_face_turn(m / 3, m % 3 + 1, &turn[m]);
	memset(dist, 0xff, CUBE2_STATES);
	dist[0] = 0;
	queue[0] = 0;
	uint32_t head = 0, tail = 1;
	while (head < tail) {
		uint32_t i = queue[head++];
		cube_index ix = {i, 0}, jx;
		cubie2 x, y;
		REQUIRE(cubie2_unrank(&ix, &x) == CUBE_OK);
		for (int m = 0; m < 9; m++) {
			cubie2_compose(&x, &turn[m], &y);
			REQUIRE(cubie2_rank(&y, &jx) == CUBE_OK);
			if (dist[jx.corner] == 0xff) {
				dist[jx.corner] = (uint8_t)(dist[i] + 1);
				queue[tail++] = (uint32_t)jx.corner;
			}
		}
	}
	ck_assert_uint_eq(tail, CUBE2_STATES);
	long checked = 0;
	uint32_t every = SANITIZED ? 50 : 5;
	for (uint32_t i = 0; i < CUBE2_STATES; i++) {
		if (i % every && dist[i] > 6)
			continue;
		cube_index ix = {i, 0};
		cubie2 x;
		cube_move m[16];
		cubie2_unrank(&ix, &x);
		int k = solve2_optimal(tables2, &x, m, 16);
		REQUIRE(k == dist[i] && solves2(&x, m, k) &&
			face_turns_only(m, k, 2));
		checked++;
	}
	fprintf(stderr, "solve: %ld 2x2 states solved optimally\n", checked);
	free(dist);
	free(queue);
}
END_TEST

START_TEST(random_states2)
{
	cube_rng r;
	cube_rng_seed(&r, 2);
	for (int i = 0; i < 20000; i++) {
		cubie2 x;
		cube_move m[16];
		cubie2_random(&r, &x);
		REQUIRE(cubie2_is_valid(&x));
		int k = solve2_optimal(tables2, &x, m, 16);
		REQUIRE(k >= 0 && k <= 11 && solves2(&x, m, k));
		/* R U F only, so DBL never moves */
		for (int j = 0; j < k; j++)
			REQUIRE(m[j].lo == 0 && m[j].hi == 0);
	}
}
END_TEST

START_TEST(solve2_edges)
{
	cubie2 x;
	cube_move m[16];
	cubie2_solved(&x);
	ck_assert_int_eq(solve2_optimal(tables2, &x, m, 16), 0);
	ck_assert_int_eq(solve2_optimal(tables2, &x, NULL, 0), 0);
	x.co[0] = 1; /* twisted corner */
	ck_assert_int_eq(solve2_optimal(tables2, &x, m, 16), CUBE_EINVALID);
	cubie2_solved(&x);
	x.cp[6] = 7, x.cp[7] = 6; /* DBL away from home: not normalised */
	ck_assert_int_eq(solve2_optimal(tables2, &x, m, 16), CUBE_EINVALID);
	ck_assert_int_eq(solve2_optimal(NULL, &x, m, 16), CUBE_EINVAL);
	/* a 2-move state needs room for 2 */
	cubie2 t;
	cubie2_face_turn(0, 1, &x);
	cubie2_face_turn(1, 1, &t);
	cubie2_compose(&x, &t, &x);
	ck_assert_int_eq(solve2_optimal(tables2, &x, m, 1), CUBE_ESPACE);
	ck_assert_int_eq(solve2_optimal(tables2, &x, m, 2), 2);
	ck_assert(solves2(&x, m, 2));
	uint64_t counts[12];
	ck_assert_int_eq(solve2_table_histogram(NULL, counts), CUBE_EINVAL);
}
END_TEST

/* --------------------------------------------------------- rng, scrambles */

START_TEST(rng_reproducible)
{
	cube_rng a, b, c;
	cube_rng_seed(&a, 12345);
	cube_rng_seed(&b, 12345);
	cube_rng_seed(&c, 12346);
	int differ = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = cube_rng_next(&a);
		ck_assert_uint_eq(x, cube_rng_next(&b));
		differ += x != cube_rng_next(&c);
	}
	ck_assert_int_gt(differ, 990);
	/* xoshiro256** from the state {1, 2, 3, 4}, as its reference code
	 * gives, and splitmix64 seeding pinned: a seed must name the same
	 * scramble in every release */
	cube_rng v = {{1, 2, 3, 4}};
	ck_assert_uint_eq(cube_rng_next(&v), 11520);
	ck_assert_uint_eq(cube_rng_next(&v), 0);
	ck_assert_uint_eq(cube_rng_next(&v), 1509978240);
	ck_assert_uint_eq(cube_rng_next(&v), 1215971899390074240ULL);
	cube_rng_seed(&a, 0);
	ck_assert_uint_eq(cube_rng_next(&a), 0x99ec5f36cb75f2b4ULL);
	ck_assert_uint_eq(cube_rng_next(&a), 0xbf6e1f784956452aULL);
}
END_TEST

START_TEST(rng_below)
{
	cube_rng r;
	cube_rng_seed(&r, 1);
	ck_assert_uint_eq(cube_rng_below(&r, 0), 0);
	ck_assert_uint_eq(cube_rng_below(&r, 1), 0);
	/* roughly uniform: 60,000 draws in 6 bins, each within 5% */
	int bins[6] = {0};
	for (int i = 0; i < 60000; i++) {
		uint64_t x = cube_rng_below(&r, 6);
		REQUIRE(x < 6);
		bins[x]++;
	}
	for (int k = 0; k < 6; k++)
		ck_assert(bins[k] > 9500 && bins[k] < 10500);
	uint64_t big = CUBE3_EDGE_STATES;
	for (int i = 0; i < 1000; i++)
		REQUIRE(cube_rng_below(&r, big) < big);
}
END_TEST

/* Random states are valid, and each corner lands on each position about
 * equally often. */
START_TEST(random_states_uniform)
{
	cube_rng r;
	cube_rng_seed(&r, 3);
	int where[8] = {0}, twist[3] = {0};
	for (int i = 0; i < 24000; i++) {
		cubie3 x;
		cubie3_random(&r, &x);
		REQUIRE(cubie3_is_valid(&x));
		for (int p = 0; p < 8; p++)
			if (x.cp[p] == 0)
				where[p]++, twist[x.co[p]]++;
	}
	for (int p = 0; p < 8; p++)
		ck_assert(where[p] > 2700 && where[p] < 3300);
	for (int t = 0; t < 3; t++)
		ck_assert(twist[t] > 7500 && twist[t] < 8500);
}
END_TEST

/* A random-state scramble is the inverse of a solution of a random state:
 * applied to a solved cube it gives that state. Same seed, same scramble. */
static int random_state_scramble(uint64_t seed, cubie3 *state, cube_move *out)
{
	cube_rng r;
	cube_move sol[32];
	cube_rng_seed(&r, seed);
	cubie3_random(&r, state);
	int k = twophase_solve(tables3, state, NULL, sol, 32);
	for (int i = 0; i < k; i++) {
		out[i] = sol[k - 1 - i];
		out[i].qt = (uint8_t)(4 - out[i].qt);
	}
	return k;
}

START_TEST(random_state_scrambles)
{
	for (uint64_t seed = 1; seed <= 50; seed++) {
		cubie3 x, y;
		cube_move a[32], b[32];
		int ka = random_state_scramble(seed, &x, a);
		int kb = random_state_scramble(seed, &y, b);
		ck_assert_int_gt(ka, 0);
		ck_assert_int_eq(ka, kb);
		ck_assert(memcmp(a, b, (size_t)ka * sizeof a[0]) == 0);
		_Alignas(16) unsigned char buf[512];
		cube_t *c = (cube_t *)(void *)buf;
		char want[54], got[54];
		cube_init(c, 3);
		ck_assert_int_eq(cube_apply_moves(c, a, (size_t)ka), CUBE_OK);
		cube_to_facelets(c, got);
		cube3_to_facelets(&x, want);
		ck_assert(memcmp(got, want, 54) == 0);
	}
}
END_TEST

/* Check one random-move scramble of size n: the right length, outer
 * blocks only (at most half the cube deep, and on an even cube the half
 * block only from U, R or F), and within each run on one axis the blocks
 * strictly in key order. */
static void check_scramble(int n, const cube_move *m, int len)
{
	ck_assert_int_eq(len, scramble_length(n));
	int half = n / 2, last_key = -1;
	for (int i = 0; i < len; i++) {
		REQUIRE(m[i].axis <= 2 && m[i].qt >= 1 && m[i].qt <= 3);
		REQUIRE(m[i].lo <= m[i].hi && m[i].hi < n);
		int key;
		if (m[i].lo == 0) {
			key = m[i].hi; /* depth hi + 1 from the + face */
			REQUIRE(m[i].hi + 1 <= half);
		} else {
			REQUIRE(m[i].hi == n - 1);
			int depth = n - m[i].lo;
			REQUIRE(depth <= (n - 1) / 2);
			key = half + depth - 1;
		}
		if (i && m[i].axis == m[i - 1].axis)
			REQUIRE(key > last_key);
		last_key = key;
	}
	/* and they are turns the engine takes */
	cube_t *c = malloc(cube_sizeof(n));
	ck_assert_ptr_nonnull(c);
	cube_init(c, n);
	ck_assert_int_eq(cube_apply_moves(c, m, (size_t)len), CUBE_OK);
	free(c);
}

START_TEST(random_move_scrambles)
{
	static const int sizes[] = {2, 3, 4, 5, 6, 7, 8, 9, 12, 17};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		int n = sizes[s], len = scramble_length(n);
		cube_move *a = malloc((size_t)len * sizeof *a);
		cube_move *b = malloc((size_t)len * sizeof *b);
		ck_assert_ptr_nonnull(a);
		ck_assert_ptr_nonnull(b);
		for (uint64_t seed = 0; seed < 20; seed++) {
			cube_rng r1, r2;
			cube_rng_seed(&r1, seed);
			cube_rng_seed(&r2, seed);
			ck_assert_int_eq(scramble_moves(&r1, n, a, len), len);
			ck_assert_int_eq(scramble_moves(&r2, n, b, len), len);
			check_scramble(n, a, len);
			ck_assert(memcmp(a, b, (size_t)len * sizeof *a) == 0);
			cube_rng_seed(&r2, seed + 1000);
			scramble_moves(&r2, n, b, len);
			ck_assert(memcmp(a, b, (size_t)len * sizeof *a) != 0);
		}
		free(a);
		free(b);
	}
}
END_TEST

START_TEST(scramble_lengths)
{
	ck_assert_int_eq(scramble_length(2), 25);
	ck_assert_int_eq(scramble_length(3), 25);
	ck_assert_int_eq(scramble_length(4), 40);
	ck_assert_int_eq(scramble_length(5), 60);
	ck_assert_int_eq(scramble_length(6), 80);
	ck_assert_int_eq(scramble_length(7), 100);
	ck_assert_int_eq(scramble_length(8), 120);
	ck_assert_int_eq(scramble_length(1), CUBE_ESIZE);
	ck_assert_int_eq(scramble_length(CUBE_MAX_N + 1), CUBE_ESIZE);
	cube_rng r, r0;
	cube_move m[40];
	cube_rng_seed(&r, 1);
	r0 = r;
	memset(m, 0xab, sizeof m);
	ck_assert_int_eq(scramble_moves(&r, 4, m, 39), CUBE_ESPACE);
	ck_assert(memcmp(&r, &r0, sizeof r) == 0); /* untouched */
	for (size_t i = 0; i < sizeof m; i++)
		ck_assert_uint_eq(((unsigned char *)m)[i], 0xab);
	ck_assert_int_eq(scramble_moves(&r, 1, m, 40), CUBE_ESIZE);
	ck_assert_int_eq(scramble_moves(NULL, 4, m, 40), CUBE_EINVAL);
}
END_TEST

START_TEST(error_names)
{
	ck_assert_str_eq(solve_errname(SOLVE_ENOTFOUND), "no_solution_found");
	ck_assert_str_eq(solve_errname(SOLVE_ECANCELLED), "cancelled");
	ck_assert_str_eq(solve_errname(SOLVE_ETABLES), "bad_tables");
	ck_assert_str_eq(solve_errname(CUBE_EINVALID), "invalid_cube");
	ck_assert_str_eq(solve_errname(CUBE_OK), "ok");
	ck_assert_str_eq(solve_errname(-999), "unknown_error");
	ck_assert_ptr_nonnull(strstr(solve_strerror(SOLVE_ETABLES), "checksum"));
	ck_assert_str_eq(solve_strerror(CUBE_EINVALID), cube_strerror(CUBE_EINVALID));
}
END_TEST

Suite *solve_suite(void)
{
	Suite *s = suite_create("solve");
	TCase *t3 = tcase_create("twophase");
	tcase_add_unchecked_fixture(t3, build_tables, NULL);
	tcase_set_timeout(t3, SANITIZED ? 600 : 120);
	tcase_add_test(t3, random_states3);
	tcase_add_test(t3, target_21);
	tcase_add_test(t3, solved_is_empty);
	tcase_add_test(t3, one_move_states);
	tcase_add_test(t3, short_scrambles);
	tcase_add_test(t3, superflip);
	tcase_add_test(t3, invalid_cubies);
	tcase_add_test(t3, not_tables);
	tcase_add_test(t3, poll_stops_at_once);
	tcase_add_test(t3, max_length_respected);
	tcase_add_test(t3, max_nodes_budget);
	tcase_add_test(t3, label_search);
	tcase_add_test(t3, small_cap);
	suite_add_tcase(s, t3);

	TCase *tt = tcase_create("tables");
	tcase_add_unchecked_fixture(tt, build_tables, NULL);
	tcase_set_timeout(tt, 60);
	tcase_add_test(tt, tables3_deterministic);
	tcase_add_test(tt, tables2_deterministic);
	tcase_add_test(tt, flipped_byte3);
	tcase_add_test(tt, flipped_byte2);
	tcase_add_test(tt, init_progress);
	tcase_add_test(tt, init_cancelled);
	suite_add_tcase(s, tt);

	TCase *t2 = tcase_create("optimal2");
	tcase_add_unchecked_fixture(t2, build_tables, NULL);
	tcase_set_timeout(t2, SANITIZED ? 600 : 60);
	tcase_add_test(t2, histogram2);
	tcase_add_test(t2, optimal2_vs_bfs);
	tcase_add_test(t2, random_states2);
	tcase_add_test(t2, solve2_edges);
	suite_add_tcase(s, t2);

	TCase *tr = tcase_create("scramble");
	tcase_add_unchecked_fixture(tr, build_tables, NULL);
	tcase_set_timeout(tr, 60);
	tcase_add_test(tr, rng_reproducible);
	tcase_add_test(tr, rng_below);
	tcase_add_test(tr, random_states_uniform);
	tcase_add_test(tr, random_state_scrambles);
	tcase_add_test(tr, random_move_scrambles);
	tcase_add_test(tr, scramble_lengths);
	tcase_add_test(tr, error_names);
	suite_add_tcase(s, tr);
	return s;
}
