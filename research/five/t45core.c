/* t45core.c — the core port of phases 4 and 5 (core/reduce/five45.c)
 * against the research code it came from (p45.c, compiled into this file
 * so the test can read its tables).
 *
 * usage: t45core [states] [seed]
 * Builds both (timed), compares every table's counts by depth (census
 * against the research bytes), then on `states` inputs made as t45.c
 * makes them (25 random outer face turns + 40 random moves of G4 u G5,
 * kept when 4 edges lie wholly in the U/D layers): ud_edges and
 * phase3_ok agree, phase 4 lengths equal (and the answers' moves), phase
 * 5 lengths equal, every result reduced on the stickers and every move in
 * its phase's set, phase 4 with k = 20 answers returns only distinct
 * answers that reach phase 4's goal (the same list as the research
 * p4_answers at that bound). Then phase 5 alone on G5 scrambles, the
 * budget and poll paths, and a cancelled build.
 *
 * build: gcc -O2 -std=c11 -Icore research/five/t45core.c \
 *        $BUILD/libcubecore.a -lm -o /tmp/t45core
 * (T45C_SMALL=1 skips the research build and the comparisons that need
 * it: for the sanitizer run.) */
#include "p45.c"

#include <time.h>

#include "reduce/five45.h"

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

static const cube_move ALL[20] = {
	{1, 1, 0, 0}, {1, 2, 0, 0}, {1, 3, 0, 0}, {1, 3, 4, 4}, {1, 2, 4, 4},
	{1, 1, 4, 4}, {0, 2, 0, 0}, {0, 2, 4, 4}, {2, 2, 0, 0}, {2, 2, 4, 4},
	{1, 2, 0, 1}, {1, 2, 3, 4}, {0, 2, 0, 1}, {0, 2, 3, 4}, {2, 2, 0, 1},
	{2, 2, 3, 4}, {2, 1, 0, 0}, {2, 3, 0, 0}, {2, 3, 4, 4}, {2, 1, 4, 4}};
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

/* build progress: calls, monotone, within total */
static long npoll;
static uint64_t last_done, last_total;
static int poll_bad;
static int build_poll(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	if (done < last_done || done > total ||
	    (last_total && total != last_total))
		poll_bad = 1;
	last_done = done, last_total = total;
	npoll++;
	return 0;
}
static int stop_poll(void *ctx, uint64_t done, uint64_t total)
{
	(void)done, (void)total;
	return ++*(int *)ctx >= 1;
}

int main(int argc, char **argv)
{
	int N = argc > 1 ? atoi(argv[1]) : 100;
	if (argc > 2)
		rng ^= strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ull;
	int small = getenv("T45C_SMALL") != NULL;
	int bad = 0;
	struct p45 *R = NULL;
	double tr = 0;
	if (!small) {
		double t0 = now();
		R = p45_init();
		tr = now() - t0;
		if (!R) {
			printf("research p45_init failed\n");
			return 1;
		}
		printf("research: tables built in %.1f s, %.1f MB\n", tr,
		       p45_bytes(R) / 1e6);
	}
	size_t tsz = reduce__five45_size(), wsz = reduce__five45_work_size(),
	       ssz = reduce__five45_search_size();
	void *tab = aligned_alloc(64, tsz), *work = malloc(wsz),
	     *srch = aligned_alloc(64, ssz);
	if (!tab || !work || !srch)
		return 1;
	double t0 = now();
	int rc = reduce__five45_build(tab, work, build_poll, NULL);
	double tc = now() - t0;
	printf("core: build rc %d in %.1f s; tables %zu bytes (%.1f MB), work "
	       "%zu bytes, search scratch %zu bytes; poll called %ld times, "
	       "last %llu/%llu, %s\n",
	       rc, tc, tsz, tsz / 1e6, wsz, ssz, npoll,
	       (unsigned long long)last_done, (unsigned long long)last_total,
	       poll_bad || last_done != last_total ? "PROGRESS BAD"
						   : "progress monotone");
	if (rc)
		return 1;
	bad += poll_bad || last_done != last_total;

	/* census */
	static const char *tname[5] = {"p4 centres", "p4 edges", "p5 centres",
				       "p5 pairing A", "p5 pairing B"};
	static const long want_n[5] = {24010000L, 197568000L, 176400L,
				       197568000L, 197568000L};
	for (int w = 0; w < 5; w++) {
		long cnt[16], sum = 0, rc2[16] = {0};
		long n = reduce__five45_census(tab, w, cnt);
		for (int d = 0; d < 16; d++)
			sum += cnt[d];
		int ok = n == want_n[w] && sum == n;
		if (R) {
			const uint8_t *rt = w == 0   ? R->p4c
					    : w == 1 ? R->p4e
					    : w == 2 ? R->p5c
					    : w == 3 ? R->p5a
						     : R->p5b;
			for (long i = 0; i < n; i++)
				rc2[rt[i] == 0xFF ? 15 : rt[i] > 15 ? 15 : rt[i]]++;
			ok &= !memcmp(cnt, rc2, sizeof cnt);
		}
		printf("census %-12s %ld entries, reached %ld, unseen %ld, by "
		       "depth:",
		       tname[w], n, n - cnt[15], cnt[15]);
		for (int d = 0; d < 15; d++)
			printf(" %ld", cnt[d]);
		printf("  %s\n", ok ? (R ? "= research" : "sum ok") : "MISMATCH");
		bad += !ok;
	}
	fflush(stdout);

	cube_t *c = malloc(cube_sizeof(5)), *d = malloc(cube_sizeof(5)),
	       *e = malloc(cube_sizeof(5));
	double *tm4 = malloc(sizeof(double) * (N + 1)),
	       *tm5 = malloc(sizeof(double) * (N + 1));
	double *rm4 = malloc(sizeof(double) * (N + 1)),
	       *rm5 = malloc(sizeof(double) * (N + 1));
	int drawn = 0, infeasible = 0, same4 = 0, s4 = 0, s5 = 0, mx4 = 0,
	    mx5 = 0, kans = 0, kbad = 0;
	long allnodes = 0;
	cube_move (*ans)[24] = malloc(sizeof(cube_move[24]) * 20);
	cube_move (*rans)[32] = malloc(sizeof(cube_move[32]) * 20);
	for (int i = 0; i < N; i++) {
		int ue;
		for (;;) {
			scramble(c, 0);
			drawn++;
			ue = reduce__five45_ud_edges(tab, c);
			if (R && ue != p45_ud_edges(R, c)) {
				printf("#%d: ud_edges differ\n", i);
				bad++;
			}
			if (ue >= 4)
				break;
			infeasible++;
			/* phase 4 finds nothing there */
			long nd = 0;
			int lens[1];
			int n = reduce__five45_p4(tab, srch, c, 0, 24, 1, ans,
						  lens, 100000000L, &nd, NULL,
						  NULL);
			if (n != 0 || reduce__five45_p4_h(tab, srch, c) != 15) {
				printf("#%d: infeasible input: p4 %d h %d\n", i,
				       n, reduce__five45_p4_h(tab, srch, c));
				bad++;
			}
		}
		int p3 = reduce__five45_phase3_ok(tab, c);
		if (!p3 || (R && !p45_phase3_ok(R, c))) {
			printf("#%d: not in phase 3's goal\n", i);
			bad++;
			continue;
		}
		int h = reduce__five45_p4_h(tab, srch, c);
		/* core phase 4 */
		int l4, l4r = -1;
		long nodes = 0;
		double ta = now();
		int n4 = reduce__five45_p4(tab, srch, c, 0, 24, 1, ans, &l4,
					   2000000000L, &nodes, NULL, NULL);
		tm4[i] = now() - ta;
		allnodes += nodes;
		if (n4 != 1) {
			printf("#%d: core phase 4 returned %d\n", i, n4);
			bad++;
			continue;
		}
		int okm = l4 >= h;
		cube_copy(d, c);
		for (int j = 0; j < l4; j++) {
			int id = move_id(ans[0][j]);
			okm &= id >= 0 && IN4[id];
			turn(d, ans[0][j]);
		}
		int ok4 = reduce__five45_phase4_ok(tab, d) &&
			  (!R || p45_phase4_ok(R, d));
		/* research phase 4 */
		int same = 1;
		if (R) {
			ta = now();
			int nr = p4_answers(R, c, 30, 1, rans, &l4r);
			rm4[i] = now() - ta;
			if (nr != 1 || l4r != l4)
				same = 0;
			else
				for (int j = 0; j < l4; j++)
					same &= !memcmp(&rans[0][j], &ans[0][j],
							sizeof(cube_move));
			same4 += same;
		}
		/* core phase 5 from the core's phase 4 end */
		cube_move m5[64], r5[64];
		nodes = 0;
		ta = now();
		int n5 = reduce__five45_p5(tab, srch, d, m5, 40, 2000000000L,
					   &nodes, NULL, NULL);
		tm5[i] = now() - ta;
		allnodes += nodes;
		for (int j = 0; j < n5; j++) {
			int id = move_id(m5[j]);
			okm &= id >= 0 && IN5[id];
		}
		cube_copy(e, d);
		for (int j = 0; j < n5; j++)
			turn(e, m5[j]);
		int red = n5 >= 0 && reduced(e);
		int l5r = -1; /* research's, when built */
		if (R) {
			cube_copy(e, d);
			ta = now();
			l5r = p5_solve(R, e, r5, 40, 2000000000L);
			rm5[i] = now() - ta;
		}
		/* k = 20 answers of the shortest length */
		int lens[20], rlens[20];
		nodes = 0;
		int k = reduce__five45_p4(tab, srch, c, 0, 24, 20, ans, lens,
					  2000000000L, &nodes, NULL, NULL);
		int kb = k < 1;
		for (int j = 0; j < k; j++) {
			cube_copy(e, c);
			for (int q = 0; q < lens[j]; q++)
				turn(e, ans[j][q]);
			if (lens[j] != l4 || !reduce__five45_phase4_ok(tab, e) ||
			    (R && !p45_phase4_ok(R, e)))
				kb++;
			for (int q = 0; q < j; q++)
				if (!memcmp(ans[q], ans[j],
					    sizeof(cube_move) * lens[j]))
					kb++;
		}
		if (R) {
			int kr = p4_answers(R, c, l4, 20, rans, rlens);
			if (kr != k)
				kb++;
			for (int j = 0; j < k && j < kr; j++)
				if (rlens[j] != lens[j] ||
				    memcmp(rans[j], ans[j],
					   sizeof(cube_move) * lens[j]))
					kb++;
		}
		kans += k;
		kbad += kb;
		int okall = ok4 && okm && red && l4r == l4 && l5r == n5 && !kb;
		if (!R)
			okall = ok4 && okm && red && !kb;
		printf("#%2d: h4 %2d len4 %2d/%2d len5 %2d/%2d (core/research) "
		       "k %2d %s%s%s%s%s\n",
		       i, h, l4, l4r, n5, l5r, k, okall ? "ok" : "BAD",
		       ok4 ? "" : " P4-GOAL", okm ? "" : " MOVES",
		       red ? "" : " NOT-REDUCED", same ? "" : " (other p4 moves)");
		fflush(stdout);
		if (!okall) {
			bad++;
			continue;
		}
		s4 += l4, s5 += n5;
		mx4 = l4 > mx4 ? l4 : mx4;
		mx5 = n5 > mx5 ? n5 : mx5;
	}
	printf("inputs: %d drawn, %d infeasible (fewer than 4 U/D edges; core "
	       "p4 0 answers, p4_h 15), %d compared\n",
	       drawn, infeasible, N);
	printf("k answers: %d checked, %d bad; phase 4 moves identical to "
	       "research on %d of %d\n",
	       kans, kbad, same4, R ? N : 0);
	qsort(tm4, (size_t)N, sizeof(double), cmpd);
	qsort(tm5, (size_t)N, sizeof(double), cmpd);
	printf("core: len4 mean %.2f max %d, len5 mean %.2f max %d; median "
	       "time p4 %.4f s p5 %.4f s (max %.3f / %.3f); nodes %ld\n",
	       (double)s4 / N, mx4, (double)s5 / N, mx5, tm4[N / 2],
	       tm5[N / 2], tm4[N - 1], tm5[N - 1], allnodes);
	if (R) {
		qsort(rm4, (size_t)N, sizeof(double), cmpd);
		qsort(rm5, (size_t)N, sizeof(double), cmpd);
		printf("research: median time p4 %.4f s p5 %.4f s (max %.3f / "
		       "%.3f)\n",
		       rm4[N / 2], rm5[N / 2], rm4[N - 1], rm5[N - 1]);
	}

	/* phase 5 alone on G5 scrambles */
	int b5 = 0;
	for (int i = 0; i < N; i++) {
		scramble(c, 1);
		cube_move m5[64], r5[64];
		long nodes = 0;
		int n5 = reduce__five45_p5(tab, srch, c, m5, 40, 2000000000L,
					   &nodes, NULL, NULL);
		cube_copy(d, c);
		for (int j = 0; j < n5; j++)
			turn(d, m5[j]);
		int ok = n5 >= 0 && reduced(d);
		if (R) {
			cube_copy(e, c);
			ok &= p5_solve(R, e, r5, 40, 2000000000L) == n5;
		}
		b5 += !ok;
	}
	printf("phase 5 alone: %d G5 scrambles, %d bad\n", N, b5);
	bad += b5;

	/* budget, poll, bad input */
	{
		int pb = 0;
		do
			scramble(c, 0);
		while (reduce__five45_ud_edges(tab, c) < 4);
		long nodes = 0;
		int lens[1];
		int n = reduce__five45_p4(tab, srch, c, 0, 24, 1, ans, lens, 10,
					  &nodes, NULL, NULL);
		pb += n != 0;
		nodes = 0;
		int calls = 0;
		n = reduce__five45_p4(tab, srch, c, 0, 24, 1, ans, lens,
				      2000000000L, &nodes, stop_poll, &calls);
		/* a stop only if the search reached 65,536 nodes */
		pb += nodes >= 65536 ? n != SOLVE_ENOTFOUND : n != 1;
		printf("p4 with poll stopping: %d after %ld nodes (%d calls)\n",
		       n, nodes, calls);
		cube_copy(d, c);
		cube_move m5[64];
		nodes = 0;
		n = reduce__five45_p5(tab, srch, d, m5, 40, 2000000000L, &nodes,
				      NULL, NULL);
		pb += n != -1; /* not in phase 4's goal */
		pb += reduce__five45_p4(tab, srch, d, 0, 24, 1, ans, lens,
					2000000000L, &nodes, NULL, NULL) < 0;
		/* phase 5 from a hard G5 state: budget of 10, then poll */
		scramble(c, 1);
		nodes = 0;
		n = reduce__five45_p5(tab, srch, c, m5, 40, 10, &nodes, NULL,
				      NULL);
		pb += n != -1;
		nodes = 0, calls = 0;
		n = reduce__five45_p5(tab, srch, c, m5, 40, 2000000000L, &nodes,
				      stop_poll, &calls);
		pb += nodes >= 65536 ? n != SOLVE_ENOTFOUND : n < 0;
		printf("p5 with poll stopping: %d after %ld nodes\n", n, nodes);
		/* solved: p4 from solved is 0 moves, p5 is 0 moves */
		cube_init(c, 5);
		nodes = 0;
		n = reduce__five45_p4(tab, srch, c, 0, 24, 1, ans, lens,
				      1000, &nodes, NULL, NULL);
		pb += n != 1 || lens[0] != 0;
		n = reduce__five45_p5(tab, srch, c, m5, 40, 1000, &nodes, NULL,
				      NULL);
		pb += n != 0;
		/* a non-5×5 */
		cube_t *c4 = malloc(cube_sizeof(4));
		cube_init(c4, 4);
		pb += reduce__five45_phase3_ok(tab, c4) != 0 ||
		      reduce__five45_p4(tab, srch, c4, 0, 24, 1, ans, lens,
					1000, &nodes, NULL, NULL) != -1 ||
		      reduce__five45_ud_edges(tab, c4) != -1;
		free(c4);
		printf("budget/poll/bad-input checks: %d bad\n", pb);
		bad += pb;
	}
	/* a build cancelled by poll, into another blob */
	if (!getenv("T45C_NOCANCEL")) {
		void *t2 = aligned_alloc(64, tsz);
		int calls = 0;
		int r = t2 ? reduce__five45_build(t2, work, stop_poll, &calls)
			   : -1;
		printf("cancelled build: %d (want %d)\n", r, SOLVE_ECANCELLED);
		bad += r != SOLVE_ECANCELLED;
		free(t2);
	}
	printf("RESULT: %d bad; core build %.1f s (research %.1f s), core "
	       "tables %.1f MB (research %.1f MB), peak RSS %.1f MB\n",
	       bad, tc, tr, tsz / 1e6, R ? p45_bytes(R) / 1e6 : 0.0,
	       peak_kb() / 1024.0);
	if (R)
		p45_free(R);
	free(tab), free(work), free(srch), free(c), free(d), free(e);
	free(tm4), free(tm5), free(rm4), free(rm5), free(ans), free(rans);
	return bad != 0;
}
