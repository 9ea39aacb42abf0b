/* check_optimal.c — the optimal 3×3 solver (core/optimal.c,
 * optimal_tables.c): every answer applied back and solving its cube;
 * optimality proved by an independent brute force (a meet-in-the-middle
 * search with no pruning tables) for every state within 8 moves; the
 * 2×2 optimal solver's corner distance as a lower bound it never beats;
 * never longer than the two-phase solver; tables that are the same bytes
 * whatever the number of builder threads, and reject a flipped byte;
 * cancellation and progress through poll.
 *
 * The level-0 tables come from $CUBED_TABLES/cubed-optimal-0.bin (the
 * file the HTTP suites' servers load), or are built once (seconds) in an
 * unchecked fixture and written there. Superflip (20 moves) and 20
 * random states beside nissy's own answers (when nissy has been built:
 * bench/optimal_vs.sh) are the "optimal_slow" suite's: minutes to hours,
 * run by `make test-optimal`. */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cube.h"
#include "cubie.h"
#include "optimal.h"
#include "require.h"
#include "solve.h"
#include "solver_tables.h"
#include "suites.h"

static unsigned char *tables0, *tables3, *tables2;
static size_t size0;

static void build_tables(void)
{
	if (tables0)
		return;
	size0 = optimal_table_size(0);
	tables0 = solver_tables_optimal_cached("optimal", 0);
	tables3 = solver_tables3_cached("optimal");
	tables2 = solver_tables_alloc("optimal", solve2_table_size());
	solver_tables_require("optimal", "2x2",
			      solve2_table_init(tables2, solve2_table_size(),
						NULL, NULL));
}

/* ---------------------------------------------------------------- cubes */

static void turn(cubie3 *x, int face, int qt)
{
	cubie3 t;
	cubie3_face_turn(face, qt, &t);
	cubie3_compose(x, &t, x);
}

/* A cube_move of a solution as the face turn it is (they are face
 * turns only), applied to x. 0, or -1 if it is not one. */
static int apply_move(cubie3 *x, cube_move m)
{
	static const int face[3][2] = {{1, 4}, {0, 3}, {2, 5}}; /* x y z */
	if (m.axis > 2 || m.lo != m.hi || (m.lo != 0 && m.lo != 2) ||
	    m.qt < 1 || m.qt > 3)
		return -1;
	int far = m.lo == 2;
	turn(x, face[m.axis][far], far ? 4 - m.qt : m.qt);
	return 0;
}

static int solves(const cubie3 *x, const cube_move *m, int k)
{
	cubie3 c = *x, id;
	for (int i = 0; i < k; i++)
		if (apply_move(&c, m[i]) < 0)
			return 0;
	cubie3_solved(&id);
	return cubie3_equal(&c, &id);
}

static void scramble(cube_rng *r, cubie3 *x, int len)
{
	cubie3_solved(x);
	for (int k = 0; k < len; k++)
		turn(x, (int)cube_rng_below(r, 6), 1 + (int)cube_rng_below(r, 3));
}

/* ---------------------------------------------------------- brute force */

/* Every state within NEAR moves of solved, with its distance, in an open
 * hash keyed by the state's index: a state is within NEAR + k moves iff
 * some k moves take it into this set. No pruning table is involved. */
#define NEAR 3
#define NEAR_SLOTS 16384

static struct near {
	cube_index ix;
	int8_t d; /* -1 = empty */
} near[NEAR_SLOTS];

static unsigned slot_of(const cube_index *ix)
{
	uint64_t h = ix->corner * 0x9e3779b97f4a7c15u ^ ix->edge;
	h ^= h >> 29;
	return (unsigned)(h * 0xbf58476d1ce4e5b9u >> 50) & (NEAR_SLOTS - 1);
}

static int near_find(const cubie3 *x)
{
	cube_index ix;
	cubie3_rank(x, &ix);
	for (unsigned s = slot_of(&ix);; s = (s + 1) & (NEAR_SLOTS - 1)) {
		if (near[s].d < 0)
			return -1;
		if (near[s].ix.corner == ix.corner && near[s].ix.edge == ix.edge)
			return near[s].d;
	}
}

static void near_add(const cubie3 *x, int d)
{
	cube_index ix;
	cubie3_rank(x, &ix);
	unsigned s = slot_of(&ix);
	while (near[s].d >= 0) {
		if (near[s].ix.corner == ix.corner && near[s].ix.edge == ix.edge) {
			if (d < near[s].d)
				near[s].d = (int8_t)d;
			return;
		}
		s = (s + 1) & (NEAR_SLOTS - 1);
	}
	near[s].ix = ix;
	near[s].d = (int8_t)d;
}

static void near_fill(const cubie3 *x, int d)
{
	near_add(x, d);
	if (d == NEAR)
		return;
	for (int f = 0; f < 6; f++)
		for (int q = 1; q <= 3; q++) {
			cubie3 y = *x;
			turn(&y, f, q);
			near_fill(&y, d + 1);
		}
}

static void near_init(void)
{
	for (int s = 0; s < NEAR_SLOTS; s++)
		near[s].d = -1;
	cubie3 id;
	cubie3_solved(&id);
	near_fill(&id, 0);
}

/* Is x within len moves? Any k <= len - NEAR moves, then the table. */
static int within(const cubie3 *x, int len, int k, int last)
{
	int d = near_find(x);
	if (d >= 0 && d <= len)
		return 1;
	if (len <= NEAR)
		return 0;
	for (int f = 0; f < 6; f++) {
		if (f == last)
			continue;
		for (int q = 1; q <= 3; q++) {
			cubie3 y = *x;
			turn(&y, f, q);
			if (within(&y, len - 1, k + 1, f))
				return 1;
		}
	}
	return 0;
}

/* The exact distance of x if it is at most 7, else 8 (meaning > 7). */
static int brute_distance(const cubie3 *x)
{
	for (int len = 0; len <= 7; len++)
		if (within(x, len, 0, -1))
			return len;
	return 8;
}

/* ---------------------------------------------------------------- tests */

/* The brute force itself, on states whose distance is known by
 * construction. */
START_TEST(brute_force_sane)
{
	near_init();
	cubie3 x;
	cubie3_solved(&x);
	ck_assert_int_eq(brute_distance(&x), 0);
	turn(&x, 1, 1);
	ck_assert_int_eq(brute_distance(&x), 1);
	turn(&x, 0, 1); /* R U */
	ck_assert_int_eq(brute_distance(&x), 2);
	/* R U R' U' F2 D L2 B — no two neighbours cancel or commute into
	 * fewer; six-move sexy-move pairs and such are shorter, so only an
	 * upper bound holds in general */
	turn(&x, 1, 3);
	turn(&x, 0, 3);
	turn(&x, 2, 2);
	turn(&x, 3, 1);
	turn(&x, 4, 2);
	turn(&x, 5, 1);
	ck_assert_int_le(brute_distance(&x), 8);
}
END_TEST

/* Random scrambles of 1 to 11 moves: the answer solves the state, and
 * its length is the brute force's distance (or more than 7 when the
 * brute force finds none within 7, which proves optimality up to 8). */
START_TEST(optimal_vs_brute_force)
{
	near_init();
	cube_rng r;
	cube_rng_seed(&r, 2025);
	int n = SANITIZED ? 60 : 300, seen8 = 0;
	for (int i = 0; i < n; i++) {
		cubie3 x;
		scramble(&r, &x, 1 + i % 11);
		cube_move m[32];
		int k = optimal_solve(tables0, &x, NULL, m, 32);
		REQUIRE(k >= 0 && solves(&x, m, k));
		int b = brute_distance(&x);
		if (k <= 7)
			REQUIRE(b == k);
		else
			REQUIRE(b == 8);
		seen8 += k == 8;
	}
	ck_assert_msg(seen8 > 0, "no state of exactly 8 moves was tried");
}
END_TEST

START_TEST(one_move_states)
{
	for (int f = 0; f < 6; f++)
		for (int q = 1; q <= 3; q++) {
			cubie3 x;
			cube_move m[32];
			cubie3_face_turn(f, q, &x);
			int k = optimal_solve(tables0, &x, NULL, m, 32);
			ck_assert_int_eq(k, 1);
			ck_assert(solves(&x, m, 1));
		}
	cubie3 id;
	cube_move m[1];
	cubie3_solved(&id);
	ck_assert_int_eq(optimal_solve(tables0, &id, NULL, m, 0), 0);
}
END_TEST

/* Known optimal lengths: the checkerboard U2 D2 F2 B2 R2 L2 is 6, the
 * cube in a cube pattern's corner 3-cycle ("A-perm",
 * R' F R' B2 R F' R' B2 R2) 9. */
START_TEST(known_lengths)
{
	static const struct {
		const char *name;
		int moves[12][2];
		int n, optimal;
	} cases[] = {
		{"checkerboard", {{0, 2}, {3, 2}, {2, 2}, {5, 2}, {1, 2}, {4, 2}},
		 6, 6},
		{"A-perm", {{1, 3}, {2, 1}, {1, 3}, {5, 2}, {1, 1}, {2, 3},
			    {1, 3}, {5, 2}, {1, 2}}, 9, 9},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		cubie3 x;
		cubie3_solved(&x);
		for (int i = 0; i < cases[c].n; i++)
			turn(&x, cases[c].moves[i][0], cases[c].moves[i][1]);
		cube_move m[32];
		int k = optimal_solve(tables0, &x, NULL, m, 32);
		ck_assert_msg(k == cases[c].optimal, "%s: %d moves, not %d",
			      cases[c].name, k, cases[c].optimal);
		ck_assert(solves(&x, m, k));
	}
}
END_TEST

/* The corners of a 3×3 are a 2×2: no 3×3 solution is shorter than the
 * 2×2 optimal solver's answer for them, and on states made of moves
 * that leave the edges' distance below the corners' (corner-only
 * commutators) the two agree. */
/* Symmetric states, where the search tries one move of each set the
 * state's symmetries map onto one another: the answer still solves the
 * state and its length is the brute force's. The states are kept by
 * rotations, mirrors or both (U D' is kept by the quarter turn about U–D
 * and by mirrors through it; the six-spot by a 120° turn; the
 * checkerboard by all 48). */
START_TEST(symmetric_states)
{
	near_init();
	static const struct {
		const char *name;
		int moves[8][2];
		int n;
	} cases[] = {
		{"U2 D2", {{0, 2}, {3, 2}}, 2},
		{"U D'", {{0, 1}, {3, 3}}, 2},
		{"U2 D2 R2 L2", {{0, 2}, {3, 2}, {1, 2}, {4, 2}}, 4},
		{"checkerboard", {{0, 2}, {3, 2}, {2, 2}, {5, 2}, {1, 2}, {4, 2}},
		 6},
		{"six-spot", {{0, 1}, {3, 3}, {1, 1}, {4, 3}, {2, 1}, {5, 3},
			      {0, 1}, {3, 3}}, 8},
		{"U R2 L2 U'", {{0, 1}, {1, 2}, {4, 2}, {0, 3}}, 4},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		cubie3 x;
		cubie3_solved(&x);
		for (int i = 0; i < cases[c].n; i++)
			turn(&x, cases[c].moves[i][0], cases[c].moves[i][1]);
		cube_move m[32];
		int k = optimal_solve(tables0, &x, NULL, m, 32);
		ck_assert_msg(k >= 0 && solves(&x, m, k), "%s: not solved",
			      cases[c].name);
		int b = brute_distance(&x);
		ck_assert_msg(k == b || (k > 7 && b == 8),
			      "%s: %d moves, brute force %d", cases[c].name, k, b);
	}
}
END_TEST

START_TEST(corners_vs_2x2)
{
	cube_rng r;
	cube_rng_seed(&r, 77);
	int n = SANITIZED ? 20 : 100, equal = 0;
	for (int i = 0; i < n; i++) {
		cubie3 x;
		scramble(&r, &x, 1 + i % 10);
		cube_move m[32], m2[32];
		int k = optimal_solve(tables0, &x, NULL, m, 32);
		REQUIRE(k >= 0 && solves(&x, m, k));
		cubie2 c2, n2;
		memcpy(c2.cp, x.cp, 8);
		memcpy(c2.co, x.co, 8);
		REQUIRE(cubie2_normalize(&c2, &n2) == CUBE_OK);
		int k2 = solve2_optimal(tables2, &n2, m2, 32);
		REQUIRE(k2 >= 0 && k2 <= k);
		equal += k2 == k;
	}
	/* the A-perm above: its corners alone need all 9 moves too */
	cubie3 x;
	cubie3_solved(&x);
	static const int a[9][2] = {{1, 3}, {2, 1}, {1, 3}, {5, 2}, {1, 1},
				    {2, 3}, {1, 3}, {5, 2}, {1, 2}};
	for (int i = 0; i < 9; i++)
		turn(&x, a[i][0], a[i][1]);
	cubie2 c2, n2;
	memcpy(c2.cp, x.cp, 8);
	memcpy(c2.co, x.co, 8);
	ck_assert_int_eq(cubie2_normalize(&c2, &n2), CUBE_OK);
	cube_move m[32];
	ck_assert_int_eq(solve2_optimal(tables2, &n2, m, 32), 9);
	ck_assert_int_eq(optimal_solve(tables0, &x, NULL, m, 32), 9);
	ck_assert_msg(equal > 0, "no state where the corners set the length");
}
END_TEST

/* Never longer than two-phase with a target of the optimum minus
 * nothing: the two-phase answer is an upper bound. */
START_TEST(not_longer_than_twophase)
{
	cube_rng r;
	cube_rng_seed(&r, 31);
	for (int i = 0; i < (SANITIZED ? 20 : 100); i++) {
		cubie3 x;
		scramble(&r, &x, 4 + i % 9);
		cube_move m[32], t[32];
		int k = optimal_solve(tables0, &x, NULL, m, 32);
		int kt = twophase_solve(tables3, &x, NULL, t, 32);
		REQUIRE(k >= 0 && kt >= k && solves(&x, m, k));
	}
}
END_TEST

START_TEST(bad_arguments)
{
	cubie3 x;
	cube_move m[32];
	cubie3_solved(&x);
	x.co[0] = 1; /* one twisted corner */
	ck_assert_int_eq(optimal_solve(tables0, &x, NULL, m, 32), CUBE_EINVALID);
	cubie3_solved(&x);
	x.eo[0] = 1; /* one flipped edge */
	ck_assert_int_eq(optimal_solve(tables0, &x, NULL, m, 32), CUBE_EINVALID);
	cubie3_solved(&x);
	turn(&x, 0, 1);
	turn(&x, 1, 1);
	ck_assert_int_eq(optimal_solve(tables0, &x, NULL, m, 1), CUBE_ESPACE);
	ck_assert_int_eq(optimal_solve(NULL, &x, NULL, m, 32), CUBE_EINVAL);
	ck_assert_int_eq(optimal_solve(tables0, &x, NULL, NULL, 32), CUBE_EINVAL);
	unsigned char junk[256] = {0};
	ck_assert_int_eq(optimal_solve(junk, &x, NULL, m, 32), SOLVE_ETABLES);
}
END_TEST

/* max_length below the optimum: nothing found, and the progress says
 * every shorter solution was ruled out. */
START_TEST(max_length_short)
{
	cubie3 x;
	cubie3_solved(&x);
	static const int mv[6][2] = {{0, 2}, {3, 2}, {2, 2},
				     {5, 2}, {1, 2}, {4, 2}};
	for (int i = 0; i < 6; i++)
		turn(&x, mv[i][0], mv[i][1]);
	optimal_progress pr = {0, 0};
	optimal_limits lim = {.max_length = 5, .progress = &pr};
	cube_move m[32];
	ck_assert_int_eq(optimal_solve(tables0, &x, &lim, m, 32),
			 SOLVE_ENOTFOUND);
	ck_assert_int_eq(pr.depth, 5);
	lim.max_length = 6;
	ck_assert_int_eq(optimal_solve(tables0, &x, &lim, m, 32), 6);
	ck_assert_int_eq(pr.depth, 5);
}
END_TEST

/* poll: called with progress that only grows, and a non-zero answer
 * stops the search at once. */
struct watch {
	optimal_progress *pr;
	int calls, stop_at, bad;
	int last_depth;
	uint64_t last_nodes;
};

static int watch_poll(void *ctx, uint64_t done, uint64_t total)
{
	struct watch *w = ctx;
	w->calls++;
	if (total != 0 || done != w->pr->nodes || w->pr->nodes < w->last_nodes ||
	    w->pr->depth < w->last_depth)
		w->bad = 1;
	w->last_nodes = w->pr->nodes;
	w->last_depth = w->pr->depth;
	return w->calls >= w->stop_at;
}

START_TEST(poll_progress_and_stop)
{
	/* a state too deep for level 0 to finish in this test's time */
	cube_rng r;
	cube_rng_seed(&r, 4);
	cubie3 x;
	cubie3_random(&r, &x);
	optimal_progress pr = {0, 0};
	struct watch w = {&pr, 0, 50, 0, -1, 0};
	optimal_limits lim = {0, watch_poll, &w, &pr};
	cube_move m[32];
	ck_assert_int_eq(optimal_solve(tables0, &x, &lim, m, 32),
			 SOLVE_ENOTFOUND);
	ck_assert_int_eq(w.calls, 50);
	ck_assert_int_eq(w.bad, 0);
	ck_assert_int_ge(pr.nodes, 49u * 4096u);
	ck_assert_int_ge(pr.depth, 10); /* no random state is that short */
}
END_TEST

START_TEST(tables_checked)
{
	ck_assert_int_eq(optimal_table_check(tables0, size0, 0), CUBE_OK);
	ck_assert_int_eq(optimal_table_check(tables0, size0 - 1, 0),
			 SOLVE_ETABLES);
	ck_assert_int_eq(optimal_table_check(tables0, size0, 1), SOLVE_ETABLES);
	ck_assert_int_eq(optimal_table_check(NULL, size0, 0), SOLVE_ETABLES);
	ck_assert_uint_eq(optimal_table_size(3), 0);
	ck_assert_uint_eq(optimal_table_size(-1), 0);
	/* one flipped byte anywhere after the header is caught */
	unsigned char *t = malloc(size0);
	ck_assert_ptr_nonnull(t);
	memcpy(t, tables0, size0);
	size_t at[] = {64, size0 / 2, size0 - 1};
	for (int i = 0; i < 3; i++) {
		t[at[i]] ^= 0x10;
		ck_assert_int_eq(optimal_table_check(t, size0, 0), SOLVE_ETABLES);
		t[at[i]] ^= 0x10;
	}
	ck_assert_int_eq(optimal_table_check(t, size0, 0), CUBE_OK);
	free(t);
	/* the level-0 coset distances: the phase-1 distances of the
	 * two-phase method, by symmetry class (max 12) */
	static const uint64_t want[13] = {1,       1,        5,       44,
					  487,     5841,     68364,   776568,
					  7950748, 52098876, 76236234,
					  3771112, 129};
	optimal_table_info in;
	ck_assert_int_eq(optimal_table_describe(tables0, &in), CUBE_OK);
	ck_assert_int_eq(in.level, 0);
	ck_assert_int_eq(in.max_depth, 12);
	uint64_t sum = 0;
	for (int d = 0; d <= 12; d++) {
		ck_assert_uint_eq(in.at_depth[d], want[d]);
		sum += in.at_depth[d];
	}
	ck_assert_uint_eq(sum, in.entries);
	ck_assert_uint_eq(in.entries, 64430u * 2187u);
}
END_TEST

/* The tables built in rounds by three threads are the bytes one thread
 * makes (the cache was made by one thread, or by a server's workers). */
struct worker {
	unsigned char *buf;
	int id, n, rc;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	w->rc = optimal_table_work(w->buf, size0, w->id, w->n, NULL, NULL);
	return NULL;
}

START_TEST(threads_same_bytes)
{
	unsigned char *t = malloc(size0);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(optimal_table_begin(t, size0, 0), CUBE_OK);
	int rc, rounds = 0;
	do {
		pthread_t th[3];
		struct worker w[3];
		for (int i = 0; i < 3; i++) {
			w[i] = (struct worker){t, i, 3, -1};
			ck_assert_int_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
		}
		for (int i = 0; i < 3; i++) {
			pthread_join(th[i], NULL);
			ck_assert_int_eq(w[i].rc, CUBE_OK);
		}
		rounds++;
	} while ((rc = optimal_table_next(t, size0)) == 1);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_gt(rounds, 10);
	ck_assert_int_eq(optimal_table_check(t, size0, 0), CUBE_OK);
	ck_assert_msg(memcmp(t, tables0, size0) == 0,
		      "three workers made other bytes than one");
	free(t);
}
END_TEST

static int stop_now(void *ctx, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	return ++*(int *)ctx >= 3;
}

START_TEST(build_cancelled)
{
	unsigned char *t = malloc(size0);
	ck_assert_ptr_nonnull(t);
	int calls = 0;
	ck_assert_int_eq(optimal_table_init(t, size0, 0, stop_now, &calls),
			 SOLVE_ECANCELLED);
	ck_assert_int_eq(optimal_table_check(t, size0, 0), SOLVE_ETABLES);
	ck_assert_int_eq(optimal_table_init(t, size0 + 1, 0, NULL, NULL),
			 CUBE_EINVAL);
	ck_assert_int_eq(optimal_table_init(t, size0, 7, NULL, NULL),
			 CUBE_EINVAL);
	free(t);
}
END_TEST

/* ---------------------------------------------------------------- slow */

/* Superflip (every edge flipped in place) is 20 moves and no fewer
 * (Reid, 1995), one of the hardest states: every depth up to 19 must be
 * ruled out. On the level-$CUBED_OPTIMAL_LEVEL tables (2 by default),
 * built or read like the level-0 ones. */
START_TEST(superflip)
{
	const char *e = getenv("CUBED_OPTIMAL_LEVEL");
	int level = e && *e ? atoi(e) : 2;
	unsigned char *t = solver_tables_optimal_cached("optimal_slow", level);
	cubie3 x;
	cubie3_solved(&x);
	memset(x.eo, 1, sizeof x.eo);
	optimal_progress pr = {0, 0};
	optimal_limits lim = {.progress = &pr};
	cube_move m[32];
	int k = optimal_solve(t, &x, &lim, m, 32);
	ck_assert_int_eq(k, 20);
	ck_assert(solves(&x, m, k));
	ck_assert_int_eq(pr.depth, 19);
	fprintf(stderr, "superflip: 20 moves, %llu nodes (level %d)\n",
		(unsigned long long)pr.nodes, level);
	free(t);
}
END_TEST

/* nissy's H48 solver, when bench/optimal_vs.sh has built it: the command
 * in $CUBED_NISSY ("nissy_ref SOLVER TABLEFILE", its driver), else the
 * driver in $NISSY_BUILD (or /tmp/cubed-nissy-build) with the biggest
 * of its tables in $CUBED_TABLES/nissy. 0 and a message if there is none. */
static int nissy_command(char *cmd, size_t cap)
{
	const char *e = getenv("CUBED_NISSY");
	if (e && *e) {
		snprintf(cmd, cap, "%s", e);
		return 1;
	}
	const char *nb = getenv("NISSY_BUILD");
	const char *dir = getenv("CUBED_TABLES");
	char drv[512];
	snprintf(drv, sizeof drv, "%s/nissy_ref",
		 nb && *nb ? nb : "/tmp/cubed-nissy-build");
	if (access(drv, X_OK) != 0 || !dir || !*dir) {
		fprintf(stderr, "nissy_lengths: skipped: no nissy driver at %s "
				"(bench/optimal_vs.sh builds it from nissy's "
				"source; or set CUBED_NISSY)\n", drv);
		return 0;
	}
	for (int h = 11; h >= 0; h--) {
		char t[600];
		snprintf(t, sizeof t, "%s/nissy/h48h%d", dir, h);
		if (access(t, R_OK) == 0) {
			snprintf(cmd, cap, "%s h48h%d %s", drv, h, t);
			return 1;
		}
	}
	fprintf(stderr, "nissy_lengths: skipped: no nissy table in %s/nissy "
			"(bench/optimal_vs.sh makes one)\n", dir);
	return 0;
}

/* The scramble that makes x: a solution of it, inverted, in nissy's
 * notation. */
static void scramble_text(const cube_move *m, int k, char *out, size_t cap)
{
	static const int face[3][2] = {{1, 4}, {0, 3}, {2, 5}};
	size_t n = 0;
	out[0] = 0;
	for (int i = k - 1; i >= 0; i--) {
		int far = m[i].lo == 2;
		int f = face[m[i].axis][far], q = 4 - (far ? 4 - m[i].qt : m[i].qt);
		n += (size_t)snprintf(out + n, cap - n, "%s%c%s", n ? " " : "",
				      "URFDLB"[f],
				      q == 1 ? "" : q == 2 ? "2" : "'");
	}
}

/* 20 random states ($CUBED_NISSY_STATES to try fewer by hand): cubed's
 * optimal length is nissy's, each answer applied back (nissy's by its
 * driver). */
START_TEST(nissy_lengths)
{
	char cmd[1200];
	if (!nissy_command(cmd, sizeof cmd))
		return;
	const char *ns = getenv("CUBED_NISSY_STATES");
	int nstates = ns && atoi(ns) > 0 ? atoi(ns) : 20;
	const char *e = getenv("CUBED_OPTIMAL_LEVEL");
	int level = e && *e ? atoi(e) : 2;
	unsigned char *t = solver_tables_optimal_cached("optimal_slow", level);
	unsigned char *t3 = solver_tables3_cached("optimal_slow");
	int in[2], out[2];
	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	signal(SIGPIPE, SIG_IGN);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	FILE *to = fdopen(in[1], "w"), *from = fdopen(out[0], "r");
	char line[4096];
	long long size;
	ck_assert_msg(from && fgets(line, sizeof line, from) &&
			      sscanf(line, "ready %lld", &size) == 1,
		      "%s did not start", cmd);
	cube_rng r;
	cube_rng_seed(&r, 65);
	for (int i = 0; i < nstates; i++) {
		cubie3 x;
		cubie3_random(&r, &x);
		cube_move m[32], tm[32];
		int kt = twophase_solve(t3, &x, NULL, tm, 32);
		REQUIRE(kt > 0 && solves(&x, tm, kt));
		char scr[256];
		scramble_text(tm, kt, scr, sizeof scr);
		int k = optimal_solve(t, &x, NULL, m, 32);
		REQUIRE(k > 0 && k <= kt && solves(&x, m, k));
		fprintf(to, "%s\n", scr);
		fflush(to);
		int nk = -2;
		double cpu, wall;
		unsigned long long nodes;
		REQUIRE(fgets(line, sizeof line, from) != NULL &&
			sscanf(line, "%d %lf %lf %llu", &nk, &cpu, &wall,
			       &nodes) == 4);
		fprintf(stderr, "nissy_lengths: state %d: cubed %d, nissy %d\n",
			i, k, nk);
		ck_assert_msg(nk == k, "state %d (%s): cubed %d moves, nissy %d",
			      i, scr, k, nk);
	}
	fclose(to);
	fclose(from);
	waitpid(pid, NULL, 0);
	free(t);
	free(t3);
}
END_TEST

Suite *optimal_slow_suite(void)
{
	Suite *s = suite_create("optimal_slow");
	TCase *tc = tcase_create("superflip");
	tcase_set_timeout(tc, 4 * 3600);
	tcase_add_test(tc, superflip);
	suite_add_tcase(s, tc);
	tc = tcase_create("nissy");
	tcase_set_tags(tc, "slow");
	tcase_set_timeout(tc, 8 * 3600);
	tcase_add_test(tc, nissy_lengths);
	suite_add_tcase(s, tc);
	return s;
}

Suite *optimal_suite(void)
{
	Suite *s = suite_create("optimal");
	TCase *tc = tcase_create("optimal");
	tcase_add_unchecked_fixture(tc, build_tables, NULL);
	tcase_set_timeout(tc, SANITIZED ? 900 : 240);
	tcase_add_test(tc, brute_force_sane);
	tcase_add_test(tc, optimal_vs_brute_force);
	tcase_add_test(tc, one_move_states);
	tcase_add_test(tc, known_lengths);
	tcase_add_test(tc, symmetric_states);
	tcase_add_test(tc, corners_vs_2x2);
	tcase_add_test(tc, not_longer_than_twophase);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, max_length_short);
	tcase_add_test(tc, poll_progress_and_stop);
	tcase_add_test(tc, tables_checked);
	tcase_add_test(tc, threads_same_bytes);
	tcase_add_test(tc, build_cancelled);
	suite_add_tcase(s, tc);
	return s;
}
