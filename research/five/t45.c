/* t45.c — test driver for p45 (phases 4 and 5 of the 5x5x5 reduction).
 *
 * usage: t45 [states] [seed]
 * Inputs: solved, 25 random outer face turns, 40 random moves of G4 u G5.
 * Each is solved with p4_answers + p5_solve (timed per phase) and with
 * p45_solve; every result is checked on the cube_t to be reduced (all
 * centres their face's colour, every edge's three stickers on each side
 * one colour), the phase 4 end to be in phase 4's goal, and every move to
 * belong to its phase's set. Then phase 5 alone on solved + 25 face turns
 * + 40 random G5 moves. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cube.h"
#include "p45.h"

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n)
{
	rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
	return (unsigned)((rng * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* the 20 moves of G4 u G5: axis, qt, lo, hi */
static const cube_move ALL[20] = {
	{1, 1, 0, 0}, {1, 2, 0, 0}, {1, 3, 0, 0}, {1, 3, 4, 4}, {1, 2, 4, 4},
	{1, 1, 4, 4}, {0, 2, 0, 0}, {0, 2, 4, 4}, {2, 2, 0, 0}, {2, 2, 4, 4},
	{1, 2, 0, 1}, {1, 2, 3, 4}, {0, 2, 0, 1}, {0, 2, 3, 4}, {2, 2, 0, 1},
	{2, 2, 3, 4}, {2, 1, 0, 0}, {2, 3, 0, 0}, {2, 3, 4, 4}, {2, 1, 4, 4}};
static const char *NAME[20] = {"U",   "U2",  "U'",  "D",   "D2",  "D'",  "R2",
			       "L2",  "F2",  "B2",  "Uw2", "Dw2", "Rw2", "Lw2",
			       "Fw2", "Bw2", "F",   "F'",  "B",   "B'"};
static const int IN4[20] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
			    1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
static const int IN5[20] = {0, 1, 0, 0, 1, 0, 1, 1, 1, 1,
			    1, 1, 1, 1, 0, 0, 1, 1, 1, 1};

static int move_id(cube_move m)
{
	for (int i = 0; i < 20; i++)
		if (ALL[i].axis == m.axis && ALL[i].qt == m.qt &&
		    ALL[i].lo == m.lo && ALL[i].hi == m.hi)
			return i;
	return -1;
}

static void turn(cube_t *c, cube_move m)
{
	cube_turn(c, m.axis, m.lo, m.hi, m.qt);
}

static void scramble(cube_t *c, int g5only)
{
	cube_init(c, 5);
	static const int fa[6][2] = {{1, 0}, {1, 4}, {0, 0},
				     {0, 4}, {2, 0}, {2, 4}};
	for (int i = 0; i < 25; i++) {
		int f = rnd(6);
		cube_turn(c, fa[f][0], fa[f][1], fa[f][1], 1 + rnd(3));
	}
	for (int i = 0; i < 40; i++) {
		int m;
		do
			m = rnd(20);
		while (g5only && !IN5[m]);
		turn(c, ALL[m]);
	}
}

/* reduced: all 9 centre stickers of a face its colour; each face's four
 * edge triplets one colour each (so both wings and the midge of every edge
 * show the same two colours the same way round) */
static int reduced(const cube_t *c)
{
	for (int f = 0; f < 6; f++) {
		for (int r = 1; r <= 3; r++)
			for (int k = 1; k <= 3; k++)
				if (cube_get(c, f, r, k) != f)
					return 0;
		for (int k = 1; k <= 3; k++) {
			if (cube_get(c, f, 0, k) != cube_get(c, f, 0, 2) ||
			    cube_get(c, f, 4, k) != cube_get(c, f, 4, 2) ||
			    cube_get(c, f, k, 0) != cube_get(c, f, 2, 0) ||
			    cube_get(c, f, k, 4) != cube_get(c, f, 2, 4))
				return 0;
		}
	}
	return 1;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static long peak_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

static void print_moves(const cube_move *m, int n)
{
	for (int i = 0; i < n; i++) {
		int id = move_id(m[i]);
		printf(" %s", id >= 0 ? NAME[id] : "?");
	}
}

/* brute force, independent of the tables: 1 if some sequence of exactly
 * depth moves from set (all moves, no pruning) reaches the goal */
static const struct p45 *BT;
static int bf(cube_t *c, int depth, int ph)
{
	if (depth == 0)
		return ph == 5 ? reduced(c) : p45_phase4_ok(BT, c);
	size_t sz = cube_sizeof(5);
	cube_t *x = malloc(sz);
	int found = 0;
	for (int m = 0; m < 20 && !found; m++) {
		if (!(ph == 5 ? IN5[m] : IN4[m]))
			continue;
		cube_copy(x, c);
		turn(x, ALL[m]);
		found = bf(x, depth - 1, ph);
	}
	free(x);
	return found;
}

static int brute(cube_t *c, int maxd, int ph)
{
	for (int d = 0; d <= maxd; d++)
		if (bf(c, d, ph))
			return d;
	return -1;
}

/* states a few moves from a phase's goal: the tables' answer must be as
 * short as the brute force's */
static int optimality_check(const struct p45 *T, cube_t *c, cube_t *d)
{
	int bad = 0, n = 0;
	BT = T;
	for (int i = 0; i < 12; i++) {
		/* phase 5: solved + k random G5 moves */
		cube_init(c, 5);
		int k = 1 + rnd(5);
		for (int j = 0; j < k; j++) {
			int m;
			do
				m = rnd(20);
			while (!IN5[m]);
			turn(c, ALL[m]);
		}
		cube_copy(d, c);
		int b = brute(d, k, 5);
		cube_move mv[64];
		int l = p5_solve(T, d, mv, 40, 100000000L);
		if (l != b || !reduced(d))
			bad++, printf("optimality p5: brute %d, p5_solve %d\n", b, l);
		n++;
	}
	for (int i = 0; i < 8; i++) {
		/* phase 4: a phase 4 goal state (phase 4's answer to a random
		 * input) + k random G4 moves */
		do
			scramble(c, 0);
		while (p45_ud_edges(T, c) < 4);
		cube_move a[1][32];
		int l;
		if (p4_answers(T, c, 30, 1, a, &l) < 1) {
			bad++;
			continue;
		}
		for (int j = 0; j < l; j++)
			turn(c, a[0][j]);
		int k = 1 + rnd(4);
		for (int j = 0; j < k; j++)
			turn(c, ALL[rnd(16)]);
		int b = brute(c, k, 4);
		int l2 = -1;
		if (p4_answers(T, c, 30, 1, a, &l2) < 1)
			l2 = -1;
		if (l2 != b)
			bad++, printf("optimality p4: brute %d, p4 %d\n", b, l2);
		n++;
	}
	printf("optimality vs brute force: %d states, %d mismatches\n", n, bad);
	return bad;
}

int main(int argc, char **argv)
{
	int N = argc > 1 ? atoi(argv[1]) : 20;
	if (argc > 2)
		rng ^= strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ull;
	long maxnodes = 2000000000L;
	double t0 = now();
	struct p45 *T = p45_init();
	double tb = now() - t0;
	if (!T) {
		fprintf(stderr, "p45_init failed\n");
		return 1;
	}
	printf("tables built in %.1f s, %.1f MB in tables, peak RSS %.1f MB\n",
	       tb, p45_bytes(T) / 1e6, peak_kb() / 1024.0);
	fflush(stdout);
	cube_t *c = malloc(cube_sizeof(5)), *d = malloc(cube_sizeof(5)),
	       *e = malloc(cube_sizeof(5));
	double *tm4 = malloc(sizeof(double) * N), *tm5 = malloc(sizeof(double) * N);
	int bad = 0, s4 = 0, s5 = 0, mx4 = 0, mx5 = 0, mxt = 0, st = 0;
	int drawn = 0, infeasible = 0, inf_ok = 1;
	for (int i = 0; i < N; i++) {
		for (;;) {
			scramble(c, 0);
			drawn++;
			if (p45_ud_edges(T, c) >= 4)
				break;
			/* phase 4 cannot pair 4 edges in the S slice: fewer
			 * than 4 edges lie wholly in the U/D layers, and G4
			 * keeps those layers' wings and midges there */
			infeasible++;
			cube_move tmp[96];
			int x4, x5;
			cube_copy(e, c);
			if (p45_solve(T, e, tmp, 96, &x4, &x5, 1000000) != -1 ||
			    !cube_equal(e, c))
				inf_ok = 0;
		}
		if (!p45_phase3_ok(T, c)) {
			printf("#%d: input not in phase 3's goal\n", i);
			bad++;
			continue;
		}
		cube_move a4[1][32], m5[64], all[96];
		int l4, n4, n5, l4b, l5b;
		cube_copy(d, c);
		double ta = now();
		n4 = p4_answers(T, d, 30, 1, a4, &l4);
		double tb4 = now();
		if (n4 < 1) {
			printf("#%d: phase 4 found nothing\n", i);
			bad++;
			continue;
		}
		for (int j = 0; j < l4; j++)
			turn(d, a4[0][j]);
		int ok4 = p45_phase4_ok(T, d);
		double tc = now();
		n5 = p5_solve(T, d, m5, 40, maxnodes);
		double td = now();
		tm4[i] = tb4 - ta, tm5[i] = td - tc;
		int okm = 1;
		for (int j = 0; j < l4; j++)
			okm &= move_id(a4[0][j]) >= 0 && IN4[move_id(a4[0][j])];
		for (int j = 0; j < n5; j++)
			okm &= move_id(m5[j]) >= 0 && IN5[move_id(m5[j])];
		int red = n5 >= 0 && reduced(d);
		/* the combined call */
		cube_copy(e, c);
		int n = p45_solve(T, e, all, 96, &l4b, &l5b, maxnodes);
		int red2 = n >= 0 && reduced(e);
		cube_copy(d, c);
		for (int j = 0; j < n && n > 0; j++)
			turn(d, all[j]);
		int same = n >= 0 && cube_equal(d, e);
		printf("#%2d: len4 %2d (%.3f s) len5 %2d (%.3f s)  p45_solve %d+%d "
		       "%s%s%s%s\n",
		       i, l4, tm4[i], n5, tm5[i], l4b, l5b,
		       red && red2 ? "reduced" : "NOT REDUCED",
		       ok4 ? "" : " PHASE4-GOAL-FAIL", okm ? "" : " BAD-MOVE",
		       same ? "" : " REPLAY-MISMATCH");
		if (getenv("T45_PRINT")) {
			printf("     p4:");
			print_moves(a4[0], l4);
			printf("\n     p5:");
			print_moves(m5, n5);
			printf("\n");
		}
		fflush(stdout);
		if (!(red && red2 && ok4 && okm && same) || l4b != l4 || l5b != n5) {
			bad++;
			continue;
		}
		s4 += l4, s5 += n5, st += l4 + n5;
		if (l4 > mx4)
			mx4 = l4;
		if (n5 > mx5)
			mx5 = n5;
		if (l4 + n5 > mxt)
			mxt = l4 + n5;
	}
	int good = N - bad;
	printf("inputs drawn %d, of which %d had fewer than 4 edges wholly in "
	       "the U/D layers (phase 4 impossible; skipped; p45_solve "
	       "returned -1 on %s of them)\n",
	       drawn, infeasible, inf_ok ? "all" : "NOT all");
	/* several phase 4 answers: each reaches phase 4's goal, shortest
	 * first */
	int kbad = 0, kcount = 0;
	for (int i = 0; i < 3; i++) {
		do
			scramble(c, 0);
		while (p45_ud_edges(T, c) < 4);
		cube_move (*ans)[32] = malloc(sizeof(cube_move[32]) * 20);
		int lens[20];
		int k1 = p4_answers(T, c, 30, 1, ans, lens);
		int best = lens[0];
		int k = p4_answers(T, c, best + 1, 20, ans, lens);
		for (int j = 0; j < k; j++) {
			cube_copy(d, c);
			for (int q = 0; q < lens[j]; q++)
				turn(d, ans[j][q]);
			if (!p45_phase4_ok(T, d) || lens[j] < best ||
			    (j && lens[j] < lens[j - 1]))
				kbad++;
			for (int q = 0; q < j; q++)
				if (lens[q] == lens[j] &&
				    !memcmp(ans[q], ans[j],
					    sizeof(cube_move) * lens[j]))
					kbad++;
		}
		kcount += k;
		printf("p4_answers: shortest %d (%d), %d answers of length <= %d:",
		       best, k1, k, best + 1);
		for (int j = 0; j < k; j++)
			printf(" %d", lens[j]);
		printf("\n");
		free(ans);
	}
	printf("p4_answers: %d answers checked, %d bad\n", kcount, kbad);
	bad += kbad;
	if (!getenv("T45_NOBRUTE"))
		bad += optimality_check(T, c, d);
	qsort(tm4, (size_t)N, sizeof(double), cmpd);
	qsort(tm5, (size_t)N, sizeof(double), cmpd);
	if (good > 0)
		printf("phase 4+5 over %d states (%d bad): len4 mean %.2f max %d, "
		       "len5 mean %.2f max %d, total mean %.2f max %d; median "
		       "time p4 %.3f s p5 %.3f s (max %.3f / %.3f)\n",
		       N, bad, (double)s4 / good, mx4, (double)s5 / good, mx5,
		       (double)st / good, mxt, tm4[N / 2], tm5[N / 2], tm4[N - 1],
		       tm5[N - 1]);
	/* phase 5 alone */
	int bad5 = 0, sum5 = 0, max5 = 0;
	for (int i = 0; i < N; i++) {
		scramble(c, 1);
		cube_move m5[64];
		double ta = now();
		int n5 = p5_solve(T, c, m5, 40, maxnodes);
		tm5[i] = now() - ta;
		int red = n5 >= 0 && reduced(c);
		printf("p5 #%2d: len5 %2d (%.3f s) %s\n", i, n5, tm5[i],
		       red ? "reduced" : "NOT REDUCED");
		if (!red) {
			bad5++;
			continue;
		}
		sum5 += n5;
		if (n5 > max5)
			max5 = n5;
	}
	qsort(tm5, (size_t)N, sizeof(double), cmpd);
	if (N - bad5 > 0)
		printf("phase 5 alone over %d states (%d bad): mean %.2f max %d, "
		       "median %.3f s max %.3f s\n",
		       N, bad5, (double)sum5 / (N - bad5), max5, tm5[N / 2],
		       tm5[N - 1]);
	printf("table build %.1f s, tables %.1f MB, peak RSS %.1f MB\n", tb,
	       p45_bytes(T) / 1e6, peak_kb() / 1024.0);
	p45_free(T);
	free(c), free(d), free(e), free(tm4), free(tm5);
	return bad || bad5;
}
