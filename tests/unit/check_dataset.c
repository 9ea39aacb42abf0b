/* check_dataset.c — labelled states in bulk (core/dataset.c) and `cubed
 * dataset` (server/dataset/dataset_cli.c).
 *
 * Core: every column against the function /v1/convert answers with
 * (cubie3_features, cube3_to_facelets, cubie3_rank); every walk's moves
 * applied to the sticker engine give the exported stickers and obey the
 * walk rules, on 2×2 to 7×7 in both metrics; any split of a range gives
 * the same bytes; the 2×2 distance histograms; label laws (optimal <=
 * two-phase <= depth, optimal re-proven by an unbounded search, every
 * solution applied back).
 *
 * CLI ($CUBED_BIN dataset): byte-identical files at 1, 2 and 4 threads,
 * shards that concatenate to the whole, the files loaded by NumPy
 * (Debian's python3-numpy, tests/lib/dataset_check.py: headers, shapes,
 * packed = features, label laws, the 2×2 histogram), bad flags that exit
 * 2 naming the flag and write nothing, a write failure and an interrupt
 * that leave no file behind.
 *
 * The level-0 optimal tables and the two-phase tables come from
 * $CUBED_TABLES (built there once if missing), as in check_optimal.c. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cube.h"
#include "cubie.h"
#include "cli.h"
#include "dataset.h"
#include "files.h"
#include "optimal.h"
#include "require.h"
#include "solve.h"
#include "solver_tables.h"
#include "suites.h"

#define BIT(c) (1u << (c))
#define ALLCOLS (BIT(DATASET_STICKERS) | BIT(DATASET_FEATURES) | \
		 BIT(DATASET_FEATURES_PACKED) | BIT(DATASET_INDEX))

static unsigned char *topt, *ttp, *t2solve, *tdist2;

static void build_tables(void)
{
	if (topt)
		return;
	topt = solver_tables_optimal_cached("dataset", 0);
	ttp = solver_tables3_cached("dataset");
	t2solve = solver_tables_alloc("dataset", solve2_table_size());
	solver_tables_require("dataset", "2x2",
			      solve2_table_init(t2solve, solve2_table_size(), NULL, NULL));
	tdist2 = solver_tables_alloc("dataset", dataset2_table_size());
	solver_tables_require("dataset", "2x2 distances",
			      dataset2_table_init(tdist2, dataset2_table_size(), NULL, NULL));
}

static dataset_spec spec(int n, int states, int lo, int hi, uint64_t count,
			 unsigned cols)
{
	/* 1400 two-phase nodes: the CLI's and the server's default */
	dataset_spec s = {n, DATASET_HTM, states, lo, hi, 12345, count, cols, 1400, 12};
	return s;
}

/* Buffers for every column of s over count rows; free with free_cols. */
static void alloc_cols(const dataset_spec *s, uint64_t count,
		       unsigned char *out[DATASET_NCOLUMNS])
{
	for (int c = 0; c < DATASET_NCOLUMNS; c++) {
		out[c] = NULL;
		if (s->columns & BIT(c)) {
			out[c] = calloc(count ? count : 1, dataset_row_bytes(s, c));
			ck_assert_ptr_nonnull(out[c]);
		}
	}
}

static void free_cols(unsigned char *out[DATASET_NCOLUMNS])
{
	for (int c = 0; c < DATASET_NCOLUMNS; c++)
		free(out[c]);
}

static int fill(const dataset_spec *s, uint64_t first, uint64_t count,
		unsigned char *out[DATASET_NCOLUMNS])
{
	dataset_tables t = {ttp, topt, tdist2};
	size_t ss = dataset_scratch_size(s);
	void *scratch = ss ? malloc(ss) : NULL;
	int rc = dataset_fill(s, &t, first, count, out, scratch, ss, NULL, NULL);
	free(scratch);
	return rc;
}

static int face_of(int c)
{
	return "URFDLB"[c];
}

/* The 66-bit index (hi, lo) as decimal, by long division in 32-bit
 * limbs: independent of cube_index_format's base-10⁹ limbs. */
static void u128_decimal(uint64_t hi, uint64_t lo, char *out)
{
	uint32_t l[4] = {(uint32_t)(hi >> 32), (uint32_t)hi, (uint32_t)(lo >> 32),
			 (uint32_t)lo};
	char tmp[48];
	int k = 0;
	for (;;) {
		uint64_t rem = 0;
		int zero = 1;
		for (int i = 0; i < 4; i++) {
			uint64_t cur = rem << 32 | l[i];
			l[i] = (uint32_t)(cur / 10);
			rem = cur % 10;
			zero &= l[i] == 0;
		}
		tmp[k++] = (char)('0' + rem);
		if (zero)
			break;
	}
	for (int i = 0; i < k; i++)
		out[i] = tmp[k - 1 - i];
	out[k] = 0;
}

static uint64_t le64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | b[k];
	return v;
}

/* ------------------------------------------------------------- columns */

/* Every column of 3×3 samples (walks and uniform) against what
 * /v1/convert reports for the same state: repr_features is
 * cubie3_features, facelets cube3_to_facelets, index cubie3_rank. */
START_TEST(columns_match_convert)
{
	const int N = SANITIZED ? 300 : 3000;
	for (int kind = 0; kind < 2; kind++) {
		dataset_spec s = spec(3, kind ? DATASET_UNIFORM : DATASET_WALK, 0, 30, N,
				      ALLCOLS | (kind ? 0 : BIT(DATASET_DEPTH)));
		unsigned char *out[DATASET_NCOLUMNS];
		alloc_cols(&s, N, out);
		ck_assert_int_eq(fill(&s, 0, N, out), CUBE_OK);
		for (int i = 0; i < N; i++) {
			cubie3 c;
			int d;
			REQUIRE(dataset_state(&s, (uint64_t)i, &c, NULL, &d) == CUBE_OK);
			REQUIRE(cubie3_is_valid(&c));
			float f[CUBE3_FEATURES];
			cubie3_features(&c, f);
			const unsigned char *fb = out[DATASET_FEATURES] + (size_t)i * 364;
			for (int k = 0; k < CUBE3_FEATURES; k++)
				REQUIRE(fb[k] == (f[k] == 1.0f ? 1 : 0) && (f[k] == 0.0f || f[k] == 1.0f));
			char fl[54];
			cube3_to_facelets(&c, fl);
			const unsigned char *st = out[DATASET_STICKERS] + (size_t)i * 54;
			for (int k = 0; k < 54; k++)
				REQUIRE(face_of(st[k]) == fl[k]);
			const unsigned char *pk = out[DATASET_FEATURES_PACKED] + (size_t)i * 46;
			for (int k = 0; k < CUBE3_FEATURES; k++)
				REQUIRE(((pk[k / 8] >> (7 - k % 8)) & 1) == fb[k]);
			for (int k = CUBE3_FEATURES; k < 46 * 8; k++)
				REQUIRE(((pk[k / 8] >> (7 - k % 8)) & 1) == 0);
			cube_index ix;
			REQUIRE(cubie3_rank(&c, &ix) == CUBE_OK);
			char want[40], got[48];
			cube_index_format(&ix, 3, want, sizeof want);
			const unsigned char *xb = out[DATASET_INDEX] + (size_t)i * 16;
			u128_decimal(le64(xb), le64(xb + 8), got);
			REQUIRE(strcmp(want, got) == 0);
			if (!kind)
				REQUIRE(out[DATASET_DEPTH][i] == d && d <= 30);
		}
		free_cols(out);
	}
}
END_TEST

/* The 2×2's columns: stickers are cube2_to_facelets, features its
 * definition (one-hot, home, untwisted) from those, the index the rank. */
START_TEST(columns_2x2)
{
	const int N = 2000;
	for (int kind = 0; kind < 3; kind++) {
		int states = kind == 0 ? DATASET_WALK : kind == 1 ? DATASET_UNIFORM : DATASET_ALL;
		dataset_spec s = spec(2, states, 0, 14, kind == 2 ? CUBE2_STATES : N, ALLCOLS);
		unsigned char *out[DATASET_NCOLUMNS];
		alloc_cols(&s, N, out);
		uint64_t first = kind == 2 ? CUBE2_STATES - N : 0;
		ck_assert_int_eq(fill(&s, first, N, out), CUBE_OK);
		for (int i = 0; i < N; i++) {
			cubie2 c;
			REQUIRE(dataset_state(&s, first + (uint64_t)i, NULL, &c, NULL) == CUBE_OK);
			REQUIRE(cubie2_is_valid(&c));
			char fl[24];
			cube2_to_facelets(&c, fl);
			const unsigned char *st = out[DATASET_STICKERS] + (size_t)i * 24;
			const unsigned char *fb = out[DATASET_FEATURES] + (size_t)i * 160;
			for (int k = 0; k < 24; k++) {
				REQUIRE(face_of(st[k]) == fl[k]);
				for (int col = 0; col < 6; col++)
					REQUIRE(fb[6 * k + col] == (st[k] == col));
			}
			for (int p = 0; p < 8; p++) {
				int at = -1;
				for (int q = 0; q < 8; q++)
					if (c.cp[q] == p)
						at = q;
				REQUIRE(fb[144 + p] == (at == p));
				REQUIRE(fb[152 + p] == (c.co[at] == 0));
			}
			const unsigned char *pk = out[DATASET_FEATURES_PACKED] + (size_t)i * 20;
			for (int k = 0; k < CUBE2_FEATURES; k++)
				REQUIRE(((pk[k / 8] >> (7 - k % 8)) & 1) == fb[k]);
			cube_index ix;
			REQUIRE(cubie2_rank(&c, &ix) == CUBE_OK);
			const unsigned char *xb = out[DATASET_INDEX] + (size_t)i * 16;
			REQUIRE(le64(xb) == 0 && le64(xb + 8) == ix.corner);
			if (kind == 2)
				REQUIRE(ix.corner == first + (uint64_t)i);
		}
		free_cols(out);
	}
}
END_TEST

/* --------------------------------------------------------------- walks */

/* Each walk's moves, applied by the sticker engine, give the exported
 * stickers; consecutive turns are on different faces and never D/L/B
 * then U/R/F; the depth label is the moves' cost in the metric and in
 * range. Sizes 2 to 7, both metrics. */
START_TEST(walks_apply)
{
	for (int n = 2; n <= 7; n++)
		for (int metric = 0; metric < 2; metric++) {
			const int N = n <= 3 ? 400 : 60;
			dataset_spec s = spec(n, DATASET_WALK, 0, 40, N,
					      BIT(DATASET_STICKERS) | BIT(DATASET_DEPTH));
			s.metric = metric;
			unsigned char *out[DATASET_NCOLUMNS];
			alloc_cols(&s, N, out);
			ck_assert_int_eq(fill(&s, 0, N, out), CUBE_OK);
			cube_t *cube = malloc(cube_sizeof(n));
			char *fl = malloc(6 * (size_t)n * (size_t)n);
			size_t nst = 6 * (size_t)n * (size_t)n;
			int seen_half = 0;
			for (int i = 0; i < N; i++) {
				cube_move mv[64];
				int k = dataset_walk_moves(&s, (uint64_t)i, mv, 64);
				REQUIRE(k >= 0);
				cube_init(cube, n);
				int cost = 0, last = -1;
				for (int j = 0; j < k; j++) {
					REQUIRE(cube_apply_moves(cube, &mv[j], 1) == CUBE_OK);
					/* the face a move turns from: U R F count
					 * layers from 0, D L B end at n-1 */
					int f = (mv[j].axis == CUBE_Y ? 0 : mv[j].axis == CUBE_X ? 1 : 2) +
						(mv[j].lo == 0 ? 0 : 3);
					REQUIRE(mv[j].lo == 0 || mv[j].hi == n - 1);
					REQUIRE(!(mv[j].lo == 0 && mv[j].hi == n - 1)); /* no rotation */
					REQUIRE(f != last);
					REQUIRE(!(last >= 3 && f == last - 3));
					if (n == 2)
						REQUIRE(f < 3);
					cost += metric == DATASET_QTM && mv[j].qt == 2 ? 2 : 1;
					seen_half |= mv[j].qt == 2;
					last = f;
				}
				REQUIRE(out[DATASET_DEPTH][i] == cost && cost <= 40);
				cube_to_facelets(cube, fl);
				const unsigned char *st = out[DATASET_STICKERS] + (size_t)i * nst;
				for (size_t q = 0; q < nst; q++)
					REQUIRE(face_of(st[q]) == fl[q]);
			}
			ck_assert(seen_half);
			free(cube);
			free(fl);
			free_cols(out);
		}
}
END_TEST

/* Depths cover [min, max] evenly and a one-depth range is that depth. */
START_TEST(walk_depths)
{
	const int N = 20000;
	dataset_spec s = spec(3, DATASET_WALK, 3, 7, N, BIT(DATASET_DEPTH));
	unsigned char *out[DATASET_NCOLUMNS];
	alloc_cols(&s, N, out);
	ck_assert_int_eq(fill(&s, 0, N, out), CUBE_OK);
	int hist[256] = {0};
	for (int i = 0; i < N; i++)
		hist[out[DATASET_DEPTH][i]]++;
	for (int d = 0; d < 256; d++) {
		if (d >= 3 && d <= 7)
			ck_assert_msg(hist[d] > N / 5 - 400 && hist[d] < N / 5 + 400,
				      "depth %d: %d of %d", d, hist[d], N);
		else
			ck_assert_int_eq(hist[d], 0);
	}
	free_cols(out);
	s = spec(3, DATASET_WALK, 9, 9, 100, BIT(DATASET_DEPTH));
	alloc_cols(&s, 100, out);
	ck_assert_int_eq(fill(&s, 0, 100, out), CUBE_OK);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(out[DATASET_DEPTH][i], 9);
	free_cols(out);
}
END_TEST

/* Uniform states are legal, of both parities about equally, with every
 * corner in the URF position about equally often, and change with the
 * seed. */
START_TEST(uniform_states)
{
	const int N = 24000;
	dataset_spec s = spec(3, DATASET_UNIFORM, 0, 0, N, BIT(DATASET_INDEX));
	int at[8] = {0}, odd = 0, same = 0;
	dataset_spec s2 = s;
	s2.seed = s.seed + 1;
	for (int i = 0; i < N; i++) {
		cubie3 c, c2;
		REQUIRE(dataset_state(&s, (uint64_t)i, &c, NULL, NULL) == CUBE_OK);
		REQUIRE(dataset_state(&s2, (uint64_t)i, &c2, NULL, NULL) == CUBE_OK);
		REQUIRE(cubie3_is_valid(&c));
		same += cubie3_equal(&c, &c2);
		at[c.cp[0]]++;
		int inv = 0;
		for (int a = 0; a < 8; a++)
			for (int b = a + 1; b < 8; b++)
				inv += c.cp[a] > c.cp[b];
		odd += inv & 1;
	}
	ck_assert_int_eq(same, 0);
	ck_assert_msg(odd > N / 2 - 600 && odd < N / 2 + 600, "odd %d of %d", odd, N);
	for (int p = 0; p < 8; p++)
		ck_assert_msg(at[p] > N / 8 - 400 && at[p] < N / 8 + 400, "corner %d: %d", p, at[p]);
}
END_TEST

/* ------------------------------------------------------- determinism */

/* The bytes of [0, N) made at once equal the bytes made in ranges of
 * uneven sizes, in any order: what threads, shards and resumed downloads
 * rely on. */
START_TEST(ranges_give_same_bytes)
{
	static const struct {
		int n, states;
		unsigned cols;
	} kinds[] = {
		{3, DATASET_WALK, ALLCOLS | BIT(DATASET_DEPTH)},
		{3, DATASET_UNIFORM, ALLCOLS},
		{2, DATASET_WALK, ALLCOLS | BIT(DATASET_DEPTH) | BIT(DATASET_OPTIMAL)},
		{5, DATASET_WALK, BIT(DATASET_STICKERS) | BIT(DATASET_DEPTH)},
	};
	const uint64_t N = 1500;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		dataset_spec s = spec(kinds[k].n, kinds[k].states, 0, 25, N, kinds[k].cols);
		unsigned char *a[DATASET_NCOLUMNS], *b[DATASET_NCOLUMNS];
		alloc_cols(&s, N, a);
		alloc_cols(&s, N, b);
		ck_assert_int_eq(fill(&s, 0, N, a), CUBE_OK);
		/* ranges of 1, 2, 3, … samples, filled from the last back */
		uint64_t starts[200];
		int nr = 0;
		for (uint64_t at = 0, len = 1; at < N; at += len, len++)
			starts[nr++] = at;
		for (int r = nr - 1; r >= 0; r--) {
			uint64_t end = r + 1 < nr ? starts[r + 1] : N;
			unsigned char *part[DATASET_NCOLUMNS];
			for (int c = 0; c < DATASET_NCOLUMNS; c++)
				part[c] = b[c] ? b[c] + starts[r] * dataset_row_bytes(&s, c) : NULL;
			ck_assert_int_eq(fill(&s, starts[r], end - starts[r], part), CUBE_OK);
		}
		for (int c = 0; c < DATASET_NCOLUMNS; c++)
			if (a[c])
				ck_assert_msg(memcmp(a[c], b[c], N * dataset_row_bytes(&s, c)) == 0,
					      "n %d column %s", s.n, dataset_column_name(c));
		free_cols(a);
		free_cols(b);
	}
}
END_TEST

/* ------------------------------------------------------------ labels */

START_TEST(dist2_histograms)
{
	static const uint64_t htm[16] = {1, 9, 54, 321, 1847, 9992, 50136, 227536,
					 870072, 1887748, 623800, 2644};
	static const uint64_t qtm[16] = {1, 6, 27, 120, 534, 2256, 8969, 33058, 114149,
					 360508, 930588, 1350852, 782536, 90280, 276};
	uint64_t c[16];
	ck_assert_int_eq(dataset2_histogram(tdist2, DATASET_HTM, c), 11);
	for (int d = 0; d < 16; d++)
		ck_assert_uint_eq(c[d], htm[d]);
	ck_assert_int_eq(dataset2_histogram(tdist2, DATASET_QTM, c), 14);
	for (int d = 0; d < 16; d++)
		ck_assert_uint_eq(c[d], qtm[d]);
}
END_TEST

static int apply_face_turn3(cubie3 *x, cube_move m)
{
	static const int face[3][2] = {{1, 4}, {0, 3}, {2, 5}};
	if (m.axis > 2 || m.lo != m.hi || (m.lo != 0 && m.lo != 2) || m.qt < 1 || m.qt > 3)
		return -1;
	int far = m.lo == 2;
	cubie3 t;
	cubie3_face_turn(face[m.axis][far], far ? 4 - m.qt : m.qt, &t);
	cubie3_compose(x, &t, x);
	return 0;
}

static int solves3(const cubie3 *x, const cube_move *m, int k)
{
	cubie3 c = *x, id;
	for (int i = 0; i < k; i++)
		if (apply_face_turn3(&c, m[i]) < 0)
			return 0;
	cubie3_solved(&id);
	return cubie3_equal(&c, &id);
}

/* 3×3 walks of 1 to 12 moves: optimal <= two-phase <= depth wherever
 * present; each two-phase label is what twophase_solve gives under the
 * same limits, its solution applied back; each optimal label re-proven
 * by an unbounded optimal search (every solution applied back). */
START_TEST(labels_3x3_laws)
{
	const int N = SANITIZED ? 60 : 400;
	dataset_spec s = spec(3, DATASET_WALK, 1, 12, N,
			      BIT(DATASET_DEPTH) | BIT(DATASET_TWOPHASE) | BIT(DATASET_OPTIMAL));
	unsigned char *out[DATASET_NCOLUMNS];
	alloc_cols(&s, N, out);
	ck_assert_int_eq(fill(&s, 0, N, out), CUBE_OK);
	int present = 0;
	for (int i = 0; i < N; i++) {
		int d = out[DATASET_DEPTH][i], tp = out[DATASET_TWOPHASE][i],
		    op = out[DATASET_OPTIMAL][i];
		ck_assert_int_ne(op, DATASET_MISSING); /* every walk <= 12 is proven */
		ck_assert_int_le(op, d);
		if (tp != DATASET_MISSING) {
			present++;
			ck_assert_int_le(tp, d);
			ck_assert_int_le(op, tp);
		}
		if (i % (SANITIZED ? 6 : 8))
			continue;
		cubie3 c;
		ck_assert_int_eq(dataset_state(&s, (uint64_t)i, &c, NULL, NULL), CUBE_OK);
		cube_move mv[32];
		solve_limits lim = {d < 21 ? d : 0, 1, NULL, NULL, s.twophase_nodes, 1};
		int len = twophase_solve(ttp, &c, &lim, mv, 32);
		if (tp == DATASET_MISSING) {
			ck_assert_int_eq(len, SOLVE_ENOTFOUND);
		} else {
			ck_assert_int_eq(len, tp);
			ck_assert(solves3(&c, mv, len));
		}
		optimal_limits ol = {0, NULL, NULL, NULL};
		len = optimal_solve(topt, &c, &ol, mv, 32);
		ck_assert_int_eq(len, op);
		ck_assert(solves3(&c, mv, len));
	}
	ck_assert_msg(present > N * 9 / 10, "two-phase labels present: %d of %d", present, N);
	free_cols(out);
}
END_TEST

/* Uniform 3×3 states with optimal_max 3: labels are missing (none is
 * that close); with a small optimal_max a walk deeper than it is proven
 * or missing, never guessed. */
START_TEST(labels_optimal_cap)
{
	const int N = 40;
	dataset_spec s = spec(3, DATASET_WALK, 1, 9, N, BIT(DATASET_DEPTH) | BIT(DATASET_OPTIMAL));
	s.optimal_max = 5;
	unsigned char *out[DATASET_NCOLUMNS];
	alloc_cols(&s, N, out);
	ck_assert_int_eq(fill(&s, 0, N, out), CUBE_OK);
	int missing = 0;
	for (int i = 0; i < N; i++) {
		int d = out[DATASET_DEPTH][i], op = out[DATASET_OPTIMAL][i];
		cubie3 c;
		ck_assert_int_eq(dataset_state(&s, (uint64_t)i, &c, NULL, NULL), CUBE_OK);
		cube_move mv[32];
		optimal_limits ol = {0, NULL, NULL, NULL};
		int len = optimal_solve(topt, &c, &ol, mv, 32);
		if (len > 5) {
			ck_assert_int_eq(op, DATASET_MISSING);
			missing++;
		} else {
			ck_assert_int_eq(op, len);
			ck_assert_int_le(op, d);
		}
	}
	ck_assert_int_gt(missing, 0);
	free_cols(out);
	s = spec(3, DATASET_UNIFORM, 0, 0, 5, BIT(DATASET_OPTIMAL));
	s.optimal_max = 3;
	alloc_cols(&s, 5, out);
	ck_assert_int_eq(fill(&s, 0, 5, out), CUBE_OK);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(out[DATASET_OPTIMAL][i], DATASET_MISSING);
	free_cols(out);
}
END_TEST

/* 2×2 optimal labels are solve2_optimal's lengths (a table of its own)
 * in HTM, the solutions applied back; QTM labels are at most twice and
 * at least the HTM ones, and at most the walk's QTM depth. */
START_TEST(labels_2x2)
{
	const int N = 3000;
	for (int metric = 0; metric < 2; metric++) {
		dataset_spec s = spec(2, DATASET_WALK, 0, 20, N,
				      BIT(DATASET_DEPTH) | BIT(DATASET_OPTIMAL));
		s.metric = metric;
		unsigned char *out[DATASET_NCOLUMNS];
		alloc_cols(&s, N, out);
		ck_assert_int_eq(fill(&s, 0, N, out), CUBE_OK);
		for (int i = 0; i < N; i++) {
			cubie2 c;
			REQUIRE(dataset_state(&s, (uint64_t)i, NULL, &c, NULL) == CUBE_OK);
			cube_move mv[16];
			int len = solve2_optimal(t2solve, &c, mv, 16);
			REQUIRE(len >= 0);
			int op = out[DATASET_OPTIMAL][i];
			REQUIRE(op <= out[DATASET_DEPTH][i]);
			if (metric == DATASET_HTM) {
				REQUIRE(op == len);
			} else {
				REQUIRE(op >= len && op <= 2 * len);
			}
			cubie2 x = c, id;
			for (int k = 0; k < len; k++) {
				static const int face[3] = {1, 0, 2}; /* x y z → R U F */
				cubie2 t;
				REQUIRE(mv[k].lo == 0 && mv[k].hi == 0);
				cubie2_face_turn(face[mv[k].axis], mv[k].qt, &t);
				cubie2_compose(&x, &t, &x);
			}
			cubie2_solved(&id);
			REQUIRE(cubie2_equal(&x, &id));
		}
		free_cols(out);
	}
}
END_TEST

static int cancel_after(void *ctx, uint64_t done, uint64_t total)
{
	(void)done, (void)total;
	int *left = ctx;
	return --*left < 0;
}

START_TEST(fill_cancels)
{
	dataset_spec s = spec(3, DATASET_UNIFORM, 0, 0, 100, BIT(DATASET_TWOPHASE));
	s.twophase_nodes = 1u << 30;
	unsigned char *out[DATASET_NCOLUMNS];
	alloc_cols(&s, 100, out);
	dataset_tables t = {ttp, topt, tdist2};
	int left = 3;
	ck_assert_int_eq(dataset_fill(&s, &t, 0, 100, out, NULL, 0, cancel_after, &left),
			 SOLVE_ECANCELLED);
	/* a table that is needed and missing */
	dataset_tables none = {NULL, NULL, NULL};
	ck_assert_int_eq(dataset_fill(&s, &none, 0, 1, out, NULL, 0, NULL, NULL), SOLVE_ETABLES);
	free_cols(out);
}
END_TEST

/* Two-phase labels of uniform states at the default budget, pinned: the
 * label search's shape (solve_limits.label: walk steps count as nodes, at
 * most one pre-move) and its budget decide these values, so a change to
 * either shows here. Each label is what twophase_solve gives with the same
 * limits, its solution applied back, and a label search is the same
 * search however often it runs. */
START_TEST(labels_uniform_pinned)
{
	enum { N = 200 };
	dataset_spec s = spec(3, DATASET_UNIFORM, 0, 0, N, BIT(DATASET_TWOPHASE));
	unsigned char *out[DATASET_NCOLUMNS];
	alloc_cols(&s, N, out);
	ck_assert_int_eq(fill(&s, 0, N, out), CUBE_OK);
	static const unsigned char first[24] = {19, 21, 21, 18, 21, 20, 20, 19,
						20, 19, 19, 20, 19, 20, 18, 20,
						19, 20, 21, 21, 20, 20, 20, 20};
	int hist[22] = {0}, missing = 0;
	uint64_t weighted = 0;
	for (int i = 0; i < N; i++) {
		int tp = out[DATASET_TWOPHASE][i];
		if (i < 24)
			ck_assert_int_eq(tp, first[i]);
		weighted += (uint64_t)i * (uint64_t)tp;
		if (tp == DATASET_MISSING) {
			missing++;
			continue;
		}
		ck_assert_int_le(tp, 21);
		hist[tp]++;
		if (i % 10)
			continue;
		cubie3 c;
		cube_move mv[32];
		ck_assert_int_eq(dataset_state(&s, (uint64_t)i, &c, NULL, NULL), CUBE_OK);
		solve_limits lim = {0, 1, NULL, NULL, s.twophase_nodes, 1};
		ck_assert_int_eq(twophase_solve(ttp, &c, &lim, mv, 32), tp);
		ck_assert(solves3(&c, mv, tp));
	}
	ck_assert_int_eq(missing, 2);
	ck_assert_int_eq(hist[17], 1);
	ck_assert_int_eq(hist[18], 11);
	ck_assert_int_eq(hist[19], 34);
	ck_assert_int_eq(hist[20], 91);
	ck_assert_int_eq(hist[21], 61);
	ck_assert_uint_eq(weighted, 446127);
	free_cols(out);
}
END_TEST

/* Each rule of dataset_check names its parameter. */
START_TEST(check_names_param)
{
	static const struct {
		int n, states, lo, hi;
		uint64_t count;
		unsigned cols;
		int metric;
		const char *param;
	} bad[] = {
		{1, DATASET_WALK, 0, 1, 10, BIT(DATASET_STICKERS), 0, "size"},
		{1025, DATASET_WALK, 0, 1, 10, BIT(DATASET_STICKERS), 0, "size"},
		{4, DATASET_UNIFORM, 0, 0, 10, BIT(DATASET_STICKERS), 0, "depth"},
		{3, DATASET_WALK, 5, 4, 10, BIT(DATASET_STICKERS), 0, "depth"},
		{3, DATASET_WALK, 0, 255, 10, BIT(DATASET_STICKERS), 0, "depth"},
		{3, DATASET_ALL, 0, 0, CUBE2_STATES, BIT(DATASET_STICKERS), 0, "all"},
		{2, DATASET_ALL, 0, 0, 10, BIT(DATASET_STICKERS), 0, "count"},
		{3, DATASET_WALK, 0, 1, 0, BIT(DATASET_STICKERS), 0, "count"},
		{3, DATASET_WALK, 0, 1, 10, 0, 0, "columns"},
		{4, DATASET_WALK, 0, 1, 10, BIT(DATASET_FEATURES), 0, "columns"},
		{3, DATASET_UNIFORM, 0, 0, 10, BIT(DATASET_DEPTH), 0, "labels"},
		{2, DATASET_WALK, 0, 1, 10, BIT(DATASET_TWOPHASE), 0, "labels"},
		{3, DATASET_WALK, 0, 1, 10, BIT(DATASET_TWOPHASE), 1, "labels"},
		{3, DATASET_WALK, 0, 1, 10, BIT(DATASET_OPTIMAL), 1, "labels"},
		{4, DATASET_WALK, 0, 1, 10, BIT(DATASET_OPTIMAL), 0, "labels"},
		{3, DATASET_WALK, 0, 1, 10, BIT(DATASET_STICKERS), 2, "metric"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		dataset_spec s = spec(bad[k].n, bad[k].states, bad[k].lo, bad[k].hi,
				      bad[k].count, bad[k].cols);
		s.metric = bad[k].metric;
		dataset_problem p = {NULL, NULL};
		ck_assert_int_eq(dataset_check(&s, &p), CUBE_EINVAL);
		ck_assert_msg(p.param && strcmp(p.param, bad[k].param) == 0,
			      "case %zu: %s, not %s (%s)", k, p.param ? p.param : "-",
			      bad[k].param, p.why ? p.why : "");
	}
	dataset_spec ok = spec(2, DATASET_WALK, 0, 5, 10, BIT(DATASET_OPTIMAL));
	ok.metric = DATASET_QTM;
	ck_assert_int_eq(dataset_check(&ok, NULL), CUBE_OK);
}
END_TEST

/* ----------------------------------------------------------------- CLI */

static char *tmpdir(void)
{
	char *d = strdup("/tmp/cubed-dataset-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char p[1200];
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

/* Entries in dir (not . and ..), -1 if it does not exist. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* The data of a .npy file (past its header): a pointer into b. */
static const unsigned char *npy_data(const unsigned char *b, size_t len, size_t *dlen)
{
	ck_assert_uint_ge(len, 10);
	ck_assert(memcmp(b, "\x93NUMPY\x01\x00", 8) == 0);
	size_t h = 10 + (size_t)(b[8] | b[9] << 8);
	ck_assert_uint_eq(h % 64, 0);
	ck_assert_uint_le(h, len);
	*dlen = len - h;
	return b + h;
}

static const char *python(void)
{
	const char *p = getenv("PYTHON");
	return p && *p ? p : "/usr/bin/python3";
}

/* tests/lib/dataset_check.py on dir, with extra arguments. */
static void numpy_check(const char *dir, const char *extra)
{
	char msg[4096];
	const char *argv[] = {python(), "tests/lib/dataset_check.py", dir, extra, NULL};
	int rc = cli_run(argv, msg, sizeof msg, 0, NULL);
	ck_assert_msg(rc == 0, "dataset_check.py %s %s: exit %d\n%s", dir,
		      extra ? extra : "", rc, msg);
}

static const char *tables_dir(void)
{
	const char *t = getenv("CUBED_TABLES");
	return t && *t ? t : "build/tables";
}

/* The same request at 1, 2 and 4 threads: the same bytes in every file;
 * three shards hold the whole's rows in order; NumPy loads them. */
START_TEST(cli_threads_and_shards)
{
	char *dir = tmpdir();
	char out[6][1200], msg[2048];
	const char *names[] = {"stickers", "features", "features_packed", "index", "depth"};
	for (int k = 0; k < 6; k++) {
		snprintf(out[k], sizeof out[k], "%s/r%d", dir, k);
		char threads[8], shard[8];
		snprintf(threads, sizeof threads, "%d", k < 3 ? 1 << k : 2);
		snprintf(shard, sizeof shard, "%d/3", k < 3 ? 1 : k - 2);
		const char *argv[] = {cubed_bin(), "dataset", "--count", "30001", "--depth", "0-30",
				      "--seed", "99", "--columns",
				      "stickers,features,features_packed,index",
				      "--threads", threads, "--out", out[k], "--quiet",
				      k < 3 ? NULL : "--shard", shard, NULL};
		ck_assert_msg(cli_run(argv, msg, sizeof msg, 0, NULL) == 0, "%s", msg);
	}
	for (size_t c = 0; c < sizeof names / sizeof names[0]; c++) {
		char p[1300];
		size_t la, lb, dl;
		snprintf(p, sizeof p, "%s/%s.npy", out[0], names[c]);
		unsigned char *a = read_whole(p, &la);
		const unsigned char *da = npy_data(a, la, &dl);
		for (int k = 1; k < 3; k++) {
			snprintf(p, sizeof p, "%s/%s.npy", out[k], names[c]);
			unsigned char *b = read_whole(p, &lb);
			ck_assert_msg(la == lb && memcmp(a, b, la) == 0, "%s differs at %d threads",
				      names[c], 1 << k);
			free(b);
		}
		size_t at = 0;
		for (int k = 3; k < 6; k++) {
			snprintf(p, sizeof p, "%s/%s.npy", out[k], names[c]);
			unsigned char *b = read_whole(p, &lb);
			size_t dbl;
			const unsigned char *db = npy_data(b, lb, &dbl);
			ck_assert_uint_le(at + dbl, dl);
			ck_assert_msg(memcmp(da + at, db, dbl) == 0, "%s: shard %d/3 differs",
				      names[c], k - 2);
			at += dbl;
			free(b);
		}
		ck_assert_uint_eq(at, dl);
		free(a);
	}
	numpy_check(out[0], NULL);
	numpy_check(out[3], NULL);
	rm_tree(dir);
	free(dir);
}
END_TEST

/* Labels through the CLI: NumPy checks the laws on the files. */
START_TEST(cli_labels)
{
	char *dir = tmpdir(), out[1200], msg[4096];
	snprintf(out, sizeof out, "%s/lab", dir);
	const char *argv[] = {cubed_bin(), "dataset", "--count", "600", "--depth", "1-12",
			      "--labels", "depth,twophase,optimal", "--columns",
			      "stickers,index", "--tables", tables_dir(), "--threads", "2",
			      "--out", out, "--quiet", NULL};
	ck_assert_msg(cli_run(argv, msg, sizeof msg, 0, NULL) == 0, "%s", msg);
	numpy_check(out, "--laws");
	rm_tree(dir);
	free(dir);
}
END_TEST

/* Every 2×2 state, labelled: the HTM histogram, index i at row i. */
START_TEST(cli_all_2x2)
{
	char *dir = tmpdir(), out[1200], msg[4096];
	snprintf(out, sizeof out, "%s/all", dir);
	const char *argv[] = {cubed_bin(), "dataset", "--size", "2", "--all", "--columns",
			      "index,features_packed", "--labels", "optimal", "--out", out,
			      "--quiet", NULL};
	ck_assert_msg(cli_run(argv, msg, sizeof msg, 0, NULL) == 0, "%s", msg);
	numpy_check(out, "--hist=1,9,54,321,1847,9992,50136,227536,870072,1887748,623800,2644");
	rm_tree(dir);
	free(dir);
}
END_TEST

/* The same in QTM, and every size from 4 up to 9 in both metrics
 * through NumPy (tagged slow: a few seconds). */
START_TEST(cli_all_2x2_qtm)
{
	char *dir = tmpdir(), out[1200], msg[4096];
	snprintf(out, sizeof out, "%s/allq", dir);
	const char *argv[] = {cubed_bin(), "dataset", "--size", "2", "--all", "--metric", "qtm",
			      "--columns", "index", "--out", out, "--quiet", NULL};
	ck_assert_msg(cli_run(argv, msg, sizeof msg, 0, NULL) == 0, "%s", msg);
	numpy_check(out, "--hist=1,6,27,120,534,2256,8969,33058,114149,360508,930588,"
			 "1350852,782536,90280,276");
	rm_tree(dir);
	free(dir);
}
END_TEST

/* A bad flag exits 2 with a message naming it, and writes nothing: the
 * --out directory is not even made. */
START_TEST(cli_bad_flags)
{
	static const struct {
		const char *args[8];
		const char *says;
	} bad[] = {
		{{"--count", "0"}, "--count"},
		{{"--count", "x"}, "--count"},
		{{"--count", "10", "--depth", "5-3"}, "--depth"},
		{{"--count", "10", "--depth", "1-300"}, "--depth"},
		{{"--count", "10", "--depth", "a-b"}, "--depth"},
		{{"--count", "10", "--size", "1"}, "--size"},
		{{"--count", "10", "--size", "5"}, "--depth"},
		{{"--count", "10", "--metric", "stm"}, "--metric"},
		{{"--count", "10", "--columns", "feature"}, "--columns"},
		{{"--count", "10", "--labels", "depth"}, "--labels"},
		{{"--count", "10", "--labels", "twophase", "--metric", "qtm"}, "--labels"},
		{{"--count", "10", "--shard", "0/2"}, "--shard"},
		{{"--count", "10", "--shard", "3/2"}, "--shard"},
		{{"--count", "10", "--threads", "0"}, "--threads"},
		{{"--count", "10", "--seed", "-1"}, "--seed"},
		{{"--count", "10", "--optimal-max", "21", "--labels", "optimal"}, "--optimal-max"},
		{{"--count", "10", "--frobnicate", "1"}, "--frobnicate"},
		{{"--all"}, "--all"},
		{{"--size", "2", "--all", "--count", "5"}, "--count"},
		{{"--depth", "3"}, "--count"},
	};
	char *dir = tmpdir(), out[1200], msg[2048];
	snprintf(out, sizeof out, "%s/never", dir);
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		const char *argv[16] = {cubed_bin(), "dataset", "--out", out};
		int n = 4;
		for (int j = 0; bad[k].args[j]; j++)
			argv[n++] = bad[k].args[j];
		argv[n] = NULL;
		int rc = cli_run(argv, msg, sizeof msg, 0, NULL);
		ck_assert_msg(rc == 2, "case %zu: exit %d: %s", k, rc, msg);
		ck_assert_msg(strstr(msg, bad[k].says) != NULL, "case %zu: '%s' does not name %s",
			      k, msg, bad[k].says);
		ck_assert_int_eq(entries(out), -1);
	}
	/* and no --out at all */
	const char *argv[] = {cubed_bin(), "dataset", "--count", "5", NULL};
	ck_assert_int_eq(cli_run(argv, msg, sizeof msg, 0, NULL), 2);
	ck_assert_ptr_nonnull(strstr(msg, "--out"));
	rm_tree(dir);
	free(dir);
}
END_TEST

/* Files past the process's size limit (RLIMIT_FSIZE: a write fails as
 * on a full disk) are reported, exit 1, and nothing stays in --out. */
START_TEST(cli_write_failure)
{
	char *dir = tmpdir(), out[1200], msg[2048];
	snprintf(out, sizeof out, "%s/small", dir);
	const char *argv[] = {cubed_bin(), "dataset", "--count", "100000", "--depth", "1-5",
			      "--out", out, "--quiet", NULL};
	int rc = cli_run(argv, msg, sizeof msg, 1 << 20, NULL);
	ck_assert_msg(rc == 1, "exit %d: %s", rc, msg);
	ck_assert_msg(strstr(msg, "features.npy") || strstr(msg, "large"), "%s", msg);
	ck_assert_int_eq(entries(out), 0);
	rm_tree(dir);
	free(dir);
}
END_TEST

/* SIGINT while writing: exit 130 and no file left, under any name. */
START_TEST(cli_interrupt)
{
	char *dir = tmpdir(), out[1200];
	snprintf(out, sizeof out, "%s/big", dir);
	const char *argv[] = {cubed_bin(), "dataset", "--count", "200000000", "--depth", "1-20",
			      "--columns", "none", "--labels", "depth", "--threads", "1",
			      "--out", out, "--quiet", NULL};
	pid_t pid;
	cli_run(argv, NULL, 0, 0, &pid);
	/* wait for the temporary file: the run has begun */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (entries(out) > 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < 20, "the run never started");
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGINT);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 130);
	ck_assert_int_eq(entries(out), 0);
	rm_tree(dir);
	free(dir);
}
END_TEST

/* A big sweep (tagged slow): 200,000 walk samples with every column and
 * the laws of 5,000 labelled ones, through the CLI and NumPy. */
START_TEST(cli_sweep_slow)
{
	char *dir = tmpdir(), out[1200], msg[4096];
	snprintf(out, sizeof out, "%s/sweep", dir);
	const char *argv[] = {cubed_bin(), "dataset", "--count", "5000", "--depth", "1-12",
			      "--labels", "depth,twophase,optimal", "--columns",
			      "stickers,features,features_packed,index", "--tables",
			      tables_dir(), "--out", out, "--quiet", NULL};
	ck_assert_msg(cli_run(argv, msg, sizeof msg, 0, NULL) == 0, "%s", msg);
	numpy_check(out, "--laws");
	rm_tree(dir);
	free(dir);
}
END_TEST

Suite *dataset_suite(void)
{
	Suite *s = suite_create("dataset");
	TCase *core = tcase_create("core");
	tcase_add_unchecked_fixture(core, build_tables, NULL);
	tcase_set_timeout(core, SANITIZED ? 600 : 120);
	tcase_add_test(core, columns_match_convert);
	tcase_add_test(core, columns_2x2);
	tcase_add_test(core, walks_apply);
	tcase_add_test(core, walk_depths);
	tcase_add_test(core, uniform_states);
	tcase_add_test(core, ranges_give_same_bytes);
	tcase_add_test(core, dist2_histograms);
	tcase_add_test(core, labels_3x3_laws);
	tcase_add_test(core, labels_uniform_pinned);
	tcase_add_test(core, labels_optimal_cap);
	tcase_add_test(core, labels_2x2);
	tcase_add_test(core, fill_cancels);
	tcase_add_test(core, check_names_param);
	suite_add_tcase(s, core);

	TCase *cli = tcase_create("cli");
	tcase_add_unchecked_fixture(cli, build_tables, NULL);
	tcase_set_timeout(cli, SANITIZED ? 600 : 120);
	tcase_add_test(cli, cli_threads_and_shards);
	tcase_add_test(cli, cli_labels);
	tcase_add_test(cli, cli_all_2x2);
	tcase_add_test(cli, cli_bad_flags);
	tcase_add_test(cli, cli_write_failure);
	tcase_add_test(cli, cli_interrupt);
	suite_add_tcase(s, cli);

	TCase *slow = tcase_create("cli_slow");
	tcase_add_unchecked_fixture(slow, build_tables, NULL);
	tcase_set_tags(slow, "slow");
	tcase_set_timeout(slow, 600);
	tcase_add_test(slow, cli_all_2x2_qtm);
	tcase_add_test(slow, cli_sweep_slow);
	suite_add_tcase(s, slow);
	return s;
}
